import { adaptersFor } from '../../src/frontend/session-requests.js'
import type { EventDataMap } from '../../src/session/events.js'
import { buildRequest, encodeRequest } from '../../src/session/request.js'
import { Session } from '../../src/session/session.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'

const HEADER: EventDataMap['request/header'] = {
  reason: 'initial',
  config: { model: 'deepseek-chat', effort: 'off', maxOutputTokens: 8192, contextWindow: 131072 },
  system: 'You are a test agent.',
  tools: [{ name: 'read', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
}

/**
 * Stores a session in `cwd` whose every step logs its `request/sent` with the exact digest, as the agent does: `turns`
 * turns of `steps` steps, each step but the last calling `read` once. With `compactBefore`, that turn starts with a
 * compaction whose summary (a `context/message` with a replace) shadows everything before it.
 */
export async function inspectedSession(home: string, cwd: string, turns: number, steps: number, compactBefore?: number): Promise<{ id: string; session: Session }> {
  const session = await Session.create(new JsonlStore(home), { cwd })
  const adapter = adaptersFor()('chat')
  session.append('request/header', HEADER)
  const text = (t: string) => [{ type: 'text' as const, text: t }]
  for (let turn = 1; turn <= turns; turn++) {
    if (turn === compactBefore) {
      const entries = session.surface()
      session.append('compaction/start', { id: `c${turn}`, trigger: 'manual', start: entries[0].seq, end: entries[entries.length - 1].seq })
      session.append('context/message', { id: `s${turn}`, content: text('Summary of the work so far.'), source: { kind: 'compaction' } }, {
        surfaceOp: { op: 'replace', start: entries[0].seq, end: entries[entries.length - 1].seq },
      })
      session.append('compaction/end', { id: `c${turn}`, outcome: 'replaced' })
    }
    session.append('turn/start', { turn })
    for (let step = 1; step <= steps; step++) {
      session.append('step/start', { turn, step })
      if (step === 1) session.append('user/message', { id: `u${turn}`, content: text(`Prompt of turn ${turn}.`), source: { kind: 'user' } })
      const { sha256, bytes } = encodeRequest(adapter, buildRequest(HEADER, session.messages()))
      session.append('request/sent', { turn, step, sha256, bytes })
      const call = step < steps ? [{ type: 'tool-call' as const, id: `call_${turn}_${step}`, name: 'read', arguments: '{"path":"a.txt"}' }] : []
      session.append('assistant/message', { turn, step, message: { role: 'assistant', content: [...text(`Answer ${turn}.${step}.`), ...call] } })
      if (call.length) {
        session.append('tool/call', { turn, step, callId: call[0].id, name: 'read', arguments: call[0].arguments })
        session.append('tool/result', { turn, step, callId: call[0].id, content: text(`Contents ${turn}.${step}.`), isError: false })
      }
      session.append('step/end', { turn, step })
    }
    session.append('turn/end', { turn, reason: 'completed' })
  }
  await session.close()
  return { id: session.id, session }
}
