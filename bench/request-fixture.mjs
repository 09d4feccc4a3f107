// Request events for the bench sessions (bench/session-fixture.mjs's `request` option): one `request/header`, then
// before each step's answer a `request/sent` whose digest is the exact body the log re-derives, as the agent logs it,
// so the inspector's digest check passes (✓) on every step. Not a benchmark itself.
import { adaptersFor } from '../dist/frontend/session-requests.js'
import { buildRequest, encodeRequest } from '../dist/session/request.js'

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
