import type { Session } from '../../src/session/session.js'

/** Test fixture: appends one complete turn with `tools` tool calls (each answered) and a final text answer. */
export function appendTurn(session: Session, turn: number, prompt: string, tools = 1): void {
  session.append('turn/start', { turn })
  session.append('step/start', { turn, step: 1 })
  session.append('user/message', { id: `u${turn}`, content: [{ type: 'text', text: prompt }], source: { kind: 'user' } })
  const calls = Array.from({ length: tools }, (_, i) => ({
    type: 'tool-call' as const,
    id: `call-${turn}-${i}`,
    name: 'bash',
    arguments: JSON.stringify({ command: `echo ${turn}.${i}` }),
  }))
  session.append('assistant/message', {
    turn,
    step: 1,
    message: { role: 'assistant', content: [{ type: 'reasoning', text: `thinking about ${turn}` }, ...calls] },
  })
  for (const call of calls) {
    session.append('tool/call', { turn, step: 1, callId: call.id, name: call.name, arguments: call.arguments })
    session.append('tool/result', {
      turn,
      step: 1,
      callId: call.id,
      content: [{ type: 'text', text: `output of ${call.id}\n`.repeat(3) }],
      isError: false,
    })
  }
  session.append('step/end', { turn, step: 1 })
  session.append('step/start', { turn, step: 2 })
  session.append('assistant/message', {
    turn,
    step: 2,
    message: { role: 'assistant', content: [{ type: 'text', text: `done with turn ${turn}` }] },
  })
  session.append('step/end', { turn, step: 2 })
  session.append('turn/end', { turn, reason: 'completed' })
}
