// Terminal UI cost on a long session: keystroke-to-screen latency and CPU per streamed token with 500 prior turns,
// rendered through ink into a fake terminal. Target (issue 9): typing stays under 16 ms per key. Needs `dist/`.
import { EventEmitter } from 'node:events'
import { performance } from 'node:perf_hooks'
import { render } from 'ink'
import { createElement } from 'react'
import { App } from '../dist/cli/tui/App.js'

const TURNS = 500
const KEYS = 200
const TOKENS = 2000

class FakeStdout extends EventEmitter {
  columns = 120
  rows = 40
  isTTY = true
  writes = 0
  bytes = 0
  onWrite = null
  write(chunk) {
    this.writes++
    this.bytes += chunk.length
    this.onWrite?.(chunk)
    return true
  }
}

class FakeStdin extends EventEmitter {
  isTTY = true
  queue = []
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
  read() {
    return this.queue.shift() ?? null
  }
  send(data) {
    this.queue.push(data)
    this.emit('readable')
  }
}

/** The agent surface the UI uses, with a prebuilt log of `TURNS` turns. */
function longSessionAgent() {
  const events = []
  const listeners = new Set()
  let t = 1_700_000_000_000
  const add = (type, data, surface) => {
    const e = { seq: events.length, time: (t += 50), type, data }
    if (surface) e.surfaceOp = 'append'
    events.push(e)
    return e
  }
  for (let turn = 1; turn <= TURNS; turn++) {
    add('turn/start', { turn })
    add('user/message', { id: `u${turn}`, content: [{ type: 'text', text: `Please change function number ${turn} to handle empty input.` }], source: { kind: 'user' } }, true)
    add('assistant/message', {
      turn, step: 1,
      message: { role: 'assistant', content: [
        { type: 'reasoning', text: `Turn ${turn}: look at the function.\nThen edit it.` },
        { type: 'text', text: `I'll edit \`src/f${turn}.ts\`:\n\n- guard the input\n- return early` },
        { type: 'tool-call', id: `c${turn}`, name: 'edit', arguments: `{"file_path":"src/f${turn}.ts","old_string":"a","new_string":"b"}` },
      ] },
      usage: { inputUncached: 500, inputCacheRead: 20_000 + turn * 100, output: 300, reasoning: 50 },
    }, true)
    add('tool/call', { turn, step: 1, callId: `c${turn}`, name: 'edit', arguments: `{"file_path":"src/f${turn}.ts"}` })
    add('tool/result', { turn, step: 1, callId: `c${turn}`, content: [{ type: 'text', text: 'Edited.' }], isError: false,
      meta: { path: `src/f${turn}.ts`, diff: `--- a\n+++ b\n@@ -1,3 +1,4 @@\n function f() {\n-  return a\n+  if (!a) return\n+  return b\n }\n` } }, true)
    add('assistant/message', { turn, step: 2, message: { role: 'assistant', content: [{ type: 'text', text: `Done with **${turn}**.` }] },
      usage: { inputUncached: 100, inputCacheRead: 21_000 + turn * 100, output: 20, reasoning: 0 } }, true)
    add('turn/end', { turn, reason: 'completed' })
  }
  const agent = {
    cwd: '/bench', session: { id: 'bench-session', events }, config: { model: 'deepseek-v4-flash', effort: 'high' },
    permissionMode: 'default', busy: false, permissionAsker: undefined,
    followUp: () => 'x', steer: () => 'x', inject: () => 'x', cancel() {}, whenIdle: async () => undefined,
    subscribe(l) { listeners.add(l); return () => listeners.delete(l) },
    setPermissionMode() {}, setModel() {}, notify() {}, close: async () => {},
    emit(e) { for (const l of listeners) l(e) },
    commit(type, data) { const e = add(type, data, false); agent.emit({ type: 'event', event: e }) },
  }
  return agent
}

const services = {
  facts: () => ({ contextWindow: 1_000_000, cost: (u) => (u.inputUncached * 0.14 + u.inputCacheRead * 0.028 + u.output * 0.28) / 1e6 }),
  addLocalAllowRule() {},
  listSessions: async () => [],
  workspaceFiles: async () => [],
  permissionRules: () => ({ allow: [], ask: [], deny: [] }),
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const pct = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]
const ms = (n) => `${n.toFixed(2)} ms`

const stdout = new FakeStdout()
const stdin = new FakeStdin()
const agent = longSessionAgent()

const t0 = performance.now()
const c0 = process.cpuUsage()
const app = render(createElement(App, { agent, services, onExit() {} }), { stdout, stdin, exitOnCtrlC: false, patchConsole: false })
await sleep(100)
const firstPaint = performance.now() - t0
const firstCpu = process.cpuUsage(c0)
console.log(`session: ${TURNS} prior turns, ${agent.session.events.length} events, ${stdout.bytes} bytes printed to scrollback`)
console.log(`first paint (history printed once): ${ms(firstPaint)} wall, ${ms((firstCpu.user + firstCpu.system) / 1000)} CPU`)

// Keystroke to screen: time from a key reaching stdin to the frame that shows it being written.
const latencies = []
const cpuPerKey = []
for (let i = 0; i < KEYS; i++) {
  const ch = String.fromCharCode(97 + (i % 26))
  const written = new Promise((resolve) => {
    stdout.onWrite = () => resolve(performance.now())
  })
  const c = process.cpuUsage()
  const start = performance.now()
  stdin.send(ch)
  const end = await written
  cpuPerKey.push((process.cpuUsage(c).user + process.cpuUsage(c).system) / 1000)
  latencies.push(end - start)
  stdout.onWrite = null
  await sleep(40) // slower than ink's 30 fps throttle, like a person typing
}
console.log(`keystroke to screen (${KEYS} keys): p50 ${ms(pct(latencies, 50))}, p95 ${ms(pct(latencies, 95))}, max ${ms(Math.max(...latencies))} (target < 16 ms)`)
console.log(`CPU per keystroke: p50 ${ms(pct(cpuPerKey, 50))}, p95 ${ms(pct(cpuPerKey, 95))}`)

// Streaming: CPU per text delta while a long answer streams, renders included.
agent.busy = true
agent.commit('turn/start', { turn: TURNS + 1 })
const s0 = process.cpuUsage()
const w0 = performance.now()
const writesBefore = stdout.writes
for (let i = 0; i < TOKENS; i++) {
  agent.emit({ type: 'text-delta', turn: TURNS + 1, step: 1, text: i % 40 === 39 ? ' word\n' : ' word' })
  if (i % 20 === 19) await sleep(5) // arrive in bursts, as SSE chunks do
}
await sleep(100)
const streamCpu = process.cpuUsage(s0)
const streamWall = performance.now() - w0
console.log(
  `streaming ${TOKENS} tokens: ${ms(((streamCpu.user + streamCpu.system) / 1000) / TOKENS)} CPU per token, ` +
    `${stdout.writes - writesBefore} frames written, ${ms(streamWall)} wall`,
)
const ok = pct(latencies, 95) < 16
console.log(ok ? 'typing target met' : 'typing target MISSED')
app.unmount()
process.exit(ok ? 0 : 1)
