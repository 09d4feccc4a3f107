// The Agent SDK's control protocol on the built Rein (docs/claude-code.md, "Control protocol"): how long from spawn to
// the answer of `initialize`, and the round trip of a control request answered while idle (`mcp_status`, N times in
// a row; medians and 95th percentiles), then of one `hook_callback` Rein sends per tool call: a turn of 20 read calls
// with a PreToolUse callback the bench answers at once, against the same turn without it (median of 7 turns,
// `CONTROL_BENCH_TURNS`). Needs the build
// (`npm run build`). `CONTROL_BENCH_N` sets N (default 200).
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { startMockModel } from '../dist/llm/mock/server.js'

const N = Number(process.env.CONTROL_BENCH_N ?? 200)
const READS = 20
const TURNS = Number(process.env.CONTROL_BENCH_TURNS ?? 7)
const CLI = new URL('../dist/cli/main.js', import.meta.url).pathname

const pct = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]

/** A Rein process on stream-json, with a line reader that resolves waiters by a test. */
function rein(url) {
  const root = mkdtempSync(join(tmpdir(), 'rein-control-bench-'))
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd, { recursive: true })
  mkdirSync(home, { recursive: true })
  writeFileSync(join(cwd, 'a.txt'), 'alpha\n')
  const env = { ...process.env, REIN_HOME: home, HOME: home, DEEPSEEK_BASE_URL: url, DEEPSEEK_API_KEY: 'sk-bench' }
  const child = spawn(process.execPath, [CLI, '-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--allow', 'Read'], { cwd, env, stdio: 'pipe' })
  const waiters = []
  let buffer = ''
  const onLine = []
  child.stdout.on('data', (d) => {
    buffer += d
    let nl
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = JSON.parse(buffer.slice(0, nl))
      buffer = buffer.slice(nl + 1)
      for (const f of onLine) f(line)
      for (const w of [...waiters]) if (w.test(line)) waiters.splice(waiters.indexOf(w), 1) && w.resolve(line)
    }
  })
  return {
    cwd,
    send: (value) => child.stdin.write(`${JSON.stringify(value)}\n`),
    next: (test) => new Promise((resolve) => waiters.push({ test, resolve })),
    onLine: (f) => onLine.push(f),
    end: () => new Promise((resolve) => (child.on('close', resolve), child.stdin.end())),
  }
}

const answerTo = (id) => (l) => l.type === 'control_response' && l.response.request_id === id

/** One run: initialize (with or without a PreToolUse callback), N idle round trips, one turn of READS reads. */
async function run(withHook) {
  const read = { name: 'read', arguments: { file_path: 'a.txt' } }
  const turn = [{ toolCalls: Array.from({ length: READS }, () => read) }, { text: 'Read.' }]
  const mock = await startMockModel({ script: Array.from({ length: TURNS }, () => turn).flat(), recordBodies: false })
  const started = performance.now()
  const r = rein(mock.url)
  r.onLine((l) => {
    if (l.type === 'control_request' && l.request.subtype === 'hook_callback') r.send({ type: 'control_response', response: { subtype: 'success', request_id: l.request_id, response: {} } })
  })
  const hooks = withHook ? { PreToolUse: [{ hookCallbackIds: ['h'] }] } : undefined
  r.send({ type: 'control_request', request_id: 'init', request: { subtype: 'initialize', ...(hooks ? { hooks } : {}) } })
  await r.next(answerTo('init'))
  const initMs = performance.now() - started
  const trips = []
  for (let i = 0; i < N; i++) {
    const t = performance.now()
    r.send({ type: 'control_request', request_id: `s${i}`, request: { subtype: 'mcp_status' } })
    await r.next(answerTo(`s${i}`))
    trips.push(performance.now() - t)
  }
  const turns = []
  for (let i = 0; i < TURNS; i++) {
    const t = performance.now()
    r.send({ type: 'user', message: { role: 'user', content: 'Read a.txt twenty times.' } })
    await r.next((l) => l.type === 'result')
    turns.push(performance.now() - t)
  }
  const turnMs = pct(turns, 0.5)
  await r.end()
  await mock.close()
  return { initMs, trips, turnMs }
}

const plain = await run(false)
const hooked = await run(true)
const f = (n) => n.toFixed(2)
console.log(`spawn to initialize answered: ${f(plain.initMs)} ms (${f(hooked.initMs)} ms with a hook registered)`)
console.log(`idle control round trip (mcp_status, n=${N}): median ${f(pct(plain.trips, 0.5))} ms, p95 ${f(pct(plain.trips, 0.95))} ms`)
console.log(
  `turn of ${READS} reads (median of ${TURNS}): ${f(plain.turnMs)} ms without callbacks, ${f(hooked.turnMs)} ms with a PreToolUse hook_callback per call ` +
    `(${f((hooked.turnMs - plain.turnMs) / READS)} ms per callback)`,
)
