// The mock model's own cost per request as a session grows: one chat-wire session of N requests, each extending the
// previous request's message list by one tool round (as Rein sends them), posted straight to the mock on loopback.
// Prints the CPU of one request (the mock, plus the client's small share) and per KB of request at requests 100, 250
// and 1,000 (3,000 with MOCK_BENCH_REQUESTS=3000; medians of a window of 21), and the per-KB ratio of the last mark to
// request 250. Goal: the mock is O(request) per request, so
// the per-KB ratio stays at most 1.5 and long-session benches measure Rein, not the mock. `MOCK_BENCH_REQUESTS`
// sets N (default 1,000; before issue 36 the mock's cost per request grew with the whole session). Needs the build.
import { performance } from 'node:perf_hooks'
import { startMockModel } from '../dist/llm/mock/server.js'

const N = Number(process.env.MOCK_BENCH_REQUESTS ?? 1000)
const MARKS = [100, 250, 1000, 3000].filter((m) => m <= N)
const GOAL = 1.5
const WINDOW = 10

const mock = await startMockModel({ script: [{ reasoning: 'r', toolCalls: [{ name: 'read', arguments: { file_path: 'a.txt' } }], repeat: true }], recordBodies: false })
const messages = [{ role: 'system', content: 'You are a test.' }, { role: 'user', content: 'start' }]
const samples = []
for (let i = 0; i < N; i++) {
  const body = JSON.stringify({ model: 'deepseek-flash', messages, thinking: { type: 'enabled' }, reasoning_effort: 'high', stream: true })
  const cpu = process.cpuUsage()
  const started = performance.now()
  const response = await fetch(`${mock.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  await response.text()
  const used = process.cpuUsage(cpu)
  samples.push({ ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, kb: body.length / 1024 })
  messages.push(
    { role: 'assistant', content: '', reasoning_content: 'r', tool_calls: [{ id: `call_${i}_0`, type: 'function', function: { name: 'read', arguments: '{"file_path":"a.txt"}' } }] },
    { role: 'tool', tool_call_id: `call_${i}_0`, content: `line ${i}: ${'the quick brown fox '.repeat(8)}` },
  )
}
await mock.close()

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const at = (mark) => {
  const window = samples.slice(Math.max(0, mark - 1 - WINDOW), Math.min(samples.length, mark + WINDOW))
  return { cpuMs: median(window.map((s) => s.cpuMs)), perKb: median(window.map((s) => s.cpuMs / s.kb)), kb: median(window.map((s) => s.kb)) }
}
for (const mark of MARKS) {
  const f = at(mark)
  console.log(`mock request ${String(mark).padStart(5)}: ${f.cpuMs.toFixed(2)} ms CPU for ${f.kb.toFixed(0)} KB (${(f.perKb * 1000).toFixed(1)} µs/KB)`)
}
if (MARKS.length > 2) {
  const ratio = at(MARKS[MARKS.length - 1]).perKb / at(250).perKb
  console.log(`mock cost per KB, request ${MARKS[MARKS.length - 1]} / request 250: ${ratio.toFixed(2)}× (goal ≤ ${GOAL}×: ${ratio <= GOAL ? 'met' : 'NOT met'})`)
}
