// SSE parsing and assembly through the real adapters over loopback against the mock model: stream throughput in
// MB/s, and the latency the adapter adds between the mock writing its first byte and the first delta reaching the
// caller. Needs the build (`npm run build`). Bounded: a few requests to 127.0.0.1 only.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { ResponseAssembler } from '../dist/llm/assemble.js'
import { createAdapter } from '../dist/llm/create.js'
import { startMockModel } from '../dist/llm/mock/server.js'

const WIRES = ['chat', 'anthropic']
const THROUGHPUT_RUNS = 3
const LATENCY_RUNS = 200

const request = {
  config: { model: 'deepseek-v4-flash', effort: 'high' },
  system: 'bench',
  tools: [],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
}

/** A large answer shaped like a real one: reasoning, text, and a tool call with big arguments. */
const bigAnswer = {
  reasoning: 'Considering the options step by step. '.repeat(20_000),
  text: 'Here is the long answer, with ünïcödé and emoji 🚀 in it. '.repeat(20_000),
  toolCalls: [{ name: 'write', arguments: { path: 'out.txt', content: 'line of file content\n'.repeat(20_000) } }],
  chunkSize: 24,
  repeat: true,
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}
function p95(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length * 0.95)]
}

/** The exact bytes the mock streams for `bigAnswer` on one wire, so the timed runs replay them without rendering. */
async function recordedStream(wire) {
  const mock = await startMockModel({ script: [bigAnswer] })
  const adapter = createAdapter({ wire, baseUrl: mock.url, apiKey: () => undefined })
  const path = wire === 'chat' ? '/chat/completions' : '/anthropic/v1/messages'
  const res = await fetch(mock.url + path, { method: 'POST', body: adapter.body(request) })
  const text = await res.text()
  await mock.close()
  return text
}

/**
 * The mock in a process of its own, answering every request with `raw`: its writing and collecting garbage then do
 * not count against the adapter being measured.
 */
async function mockProcess(raw) {
  const dir = mkdtempSync(join(tmpdir(), 'rein-sse-bench-'))
  const script = join(dir, 'script.json')
  writeFileSync(script, JSON.stringify([{ raw, repeat: true }]))
  const server = new URL('../dist/llm/mock/server.js', import.meta.url).href
  const code = `import { readFileSync } from 'node:fs'; import { startMockModel } from ${JSON.stringify(server)}
const mock = await startMockModel({ script: JSON.parse(readFileSync(${JSON.stringify(script)}, 'utf8')) })
console.log(mock.url); process.stdin.resume(); process.stdin.on('end', () => process.exit(0))`
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] })
  const [line] = await once(child.stdout, 'data')
  return {
    url: String(line).trim(),
    close: async () => {
      child.stdin.end()
      await once(child, 'exit')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

for (const wire of WIRES) {
  const raw = await recordedStream(wire)
  const bytes = Buffer.byteLength(raw)
  const mock = await mockProcess(raw)
  const adapter = createAdapter({ wire, baseUrl: mock.url, apiKey: () => undefined })
  const rates = []
  let chunks = 0
  for (let run = 0; run < THROUGHPUT_RUNS; run++) {
    const assembler = new ResponseAssembler()
    chunks = 0
    const start = performance.now()
    for await (const chunk of adapter.stream(adapter.body(request))) {
      assembler.push(chunk)
      chunks++
    }
    const ms = performance.now() - start
    const result = assembler.result()
    if (result.finish !== 'tool-calls') throw new Error(`unexpected finish ${result.finish}`)
    rates.push(bytes / 1e6 / (ms / 1000))
  }
  await mock.close()
  console.log(
    `${wire}: SSE parse+assemble over loopback ${median(rates).toFixed(1)} MB/s (median of ${THROUGHPUT_RUNS}; ` +
      `${(bytes / 1e6).toFixed(1)} MB stream, ${chunks} chunks)`,
  )
}

for (const wire of WIRES) {
  const mock = await startMockModel({ script: [{ text: 'first delta', repeat: true }] })
  const adapter = createAdapter({ wire, baseUrl: mock.url, apiKey: () => undefined })
  const latencies = []
  for (let run = 0; run < LATENCY_RUNS; run++) {
    let firstDeltaAt
    for await (const chunk of adapter.stream(adapter.body(request))) {
      if (firstDeltaAt === undefined && chunk.type === 'text-delta') firstDeltaAt = performance.now()
    }
    latencies.push(firstDeltaAt - mock.requests.at(-1).firstByteAt)
  }
  await mock.close()
  console.log(
    `${wire}: mock first byte -> adapter first delta ${median(latencies).toFixed(2)} ms median, ` +
      `${p95(latencies).toFixed(2)} ms p95 (${LATENCY_RUNS} requests)`,
  )
}
