// Request events for the bench sessions (bench/session-fixture.mjs's `request` option): one `request/header`, then
// before each step's answer a `request/sent` whose digest is the exact body the log re-derives, as the agent logs it,
// so the inspector's digest check passes (✓) on every step. `compactingRecorder` also compacts as a real session
// does: the real Compactor runs before each request whose prompt passes its threshold. Not a benchmark itself.
import { adaptersFor } from '../dist/frontend/session-requests.js'
import { Compactor } from '../dist/compaction/compactor.js'
import { buildRequest, encodeRequest } from '../dist/session/request.js'
import { prose, random } from './session-fixture.mjs'

const tool = (name, description) => ({ name, description, parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } })

/** The header the fixture's sessions are sent under: a plain deepseek-chat configuration and two tools. */
export const BENCH_HEADER = {
  reason: 'initial',
  config: { model: 'deepseek-chat', effort: 'off', maxOutputTokens: 8192, contextWindow: 131072 },
  system: 'You are Rein, a coding agent. Work in the workspace; read before you edit.',
  tools: [tool('read', 'Read a file of the workspace.'), tool('bash', 'Run a shell command in the workspace.')],
}

/** A `request` option for `appendRealisticTurn` that logs the header once and each step's exact digest. */
export function requestRecorder(header = BENCH_HEADER) {
  const adapter = adaptersFor()(header.wire ?? 'chat')
  let headerLogged = false
  return (session, turn, step) => {
    if (!headerLogged) {
      session.append('request/header', header)
      headerLogged = true
    }
    const { sha256, bytes } = encodeRequest(adapter, buildRequest(header, session.messages()))
    session.append('request/sent', { turn, step, sha256, bytes })
  }
}

/**
 * A `request` option for `appendRealisticTurnAsync` that runs the agent's request path: the header once, the body
 * derived from the log, `beforeRequest` of the real Compactor with the agent's estimate (body bytes / 4) — which
 * trims old tool outputs or summarizes the oldest exchanges when the prompt passes 80% of the header's window,
 * logging `compaction/start`, its own `request/sent` (purpose compaction), the replacing events and
 * `compaction/end` — then the (re-derived) step's `request/sent`. The summary model answers with a fixed-size text of
 * the fixture's prose; every digest is the one the inspector re-derives. `counts` tallies what happened.
 */
export function compactingRecorder(header = BENCH_HEADER) {
  const real = adaptersFor()(header.wire ?? 'chat')
  const rand = random(7)
  const summaryModel = {
    wire: real.wire,
    body: (request) => real.body(request),
    async *stream() {
      yield { type: 'text-delta', text: prose(rand, 6000) }
      yield { type: 'usage', usage: { inputUncached: 2000, inputCacheRead: 90_000, output: 1500, reasoning: 0 } }
      yield { type: 'finish', reason: 'stop' }
    },
  }
  const context = { notify: () => {} }
  const signal = new AbortController().signal
  const counts = { summaries: 0, trims: 0, largestBytes: 0 }
  let compactor
  const record = async (session, turn, step) => {
    if (!compactor) {
      session.append('request/header', header)
      compactor = new Compactor({ session, adapter: summaryModel, contextWindow: () => header.config.contextWindow })
    }
    const derive = () => encodeRequest(real, buildRequest(header, session.messages()))
    let encoded = derive()
    const before = session.length
    await compactor.beforeRequest({ turn, step, promptTokens: Math.ceil(encoded.bytes / 4), signal }, context)
    if (session.length !== before) {
      const added = session.events.slice(before)
      if (added.some((e) => e.type === 'request/sent')) counts.summaries++
      else if (added.some((e) => e.type === 'compaction/start')) counts.trims++
      encoded = derive()
    }
    counts.largestBytes = Math.max(counts.largestBytes, encoded.bytes)
    session.append('request/sent', { turn, step, sha256: encoded.sha256, bytes: encoded.bytes })
  }
  return Object.assign(record, { counts })
}
