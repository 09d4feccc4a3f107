// Harness overhead per step: on a 200-step scripted session (each step one `read` of a small file, then a final
// answer), the time from the end of one model response (its last stream chunk) to the arrival of the next request at
// the mock model, minus the time the tool itself ran. The session is a real JSONL log in a temp directory, so the two
// flush+fsync points of each step (before the tool runs, before the request) are included.
// Target: median under 5 ms (printed, not enforced). Needs the build (`npm run build`). Loopback and temp dirs only.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openAgent } from '../dist/runtime/open.js'
import { gitState } from '../dist/context/git-state.js'
import { createAdapter } from '../dist/llm/create.js'
import { startMockModel } from '../dist/llm/mock/server.js'

const STEPS = 200
const TARGET_MS = 5

const base = realpathSync(mkdtempSync(join(tmpdir(), 'rein-overhead-bench-')))
const home = join(base, 'home')
const cwd = join(base, 'repo')
mkdirSync(home, { recursive: true })
mkdirSync(cwd, { recursive: true })
// A real repository when git is installed, as a user's would be; otherwise a bare marker directory.
const repo = spawnSync('git', ['init', '-q'], { cwd }).status === 0 ? 'a fresh git repository' : 'no git; a bare .git marker'
if (repo.startsWith('no git')) mkdirSync(join(cwd, '.git'))
writeFileSync(join(cwd, 'small.txt'), 'one line of text\n'.repeat(3))

const script = []
for (let i = 0; i < STEPS; i++) script.push({ toolCalls: [{ name: 'read', arguments: { file_path: 'small.txt' } }] })
script.push({ text: 'Done.' })
const mock = await startMockModel({ script })

// Timestamps, all on this process's performance.now() clock (the mock runs in this process).
const arrivals = [] // k-th request reached the mock (its body read)
const sends = [] // k-th adapter.stream call: the harness hands the body to the transport
const lastChunks = [] // k-th response's last chunk reached the agent
const toolRuns = [] // [start, end] of each tool run, in order
const flushes = [] // [start, end] of every Session.flush
const committed = new Map() // `${type}:${step}` → time of the commit
const preStepDone = new Map() // step → when every other preStep listener had finished

// The mock records each request by pushing it onto `requests` right after reading its body; that push is the
// arrival time. Wrapping the array's own push leaves the server untouched.
mock.requests.push = function (...records) {
  arrivals.push(performance.now())
  return Array.prototype.push.apply(this, records)
}

const real = createAdapter({ wire: 'chat', baseUrl: mock.url, apiKey: () => 'bench' })
const adapter = {
  wire: real.wire,
  body: (request) => real.body(request),
  async *stream(body, options) {
    sends.push(performance.now())
    let last = 0
    for await (const chunk of real.stream(body, options)) {
      last = performance.now()
      yield chunk
    }
    lastChunks.push(last)
  },
}

let failed = false
try {
  const agent = await openAgent({
    cwd,
    home,
    env: { ...process.env, DEEPSEEK_BASE_URL: mock.url, DEEPSEEK_API_KEY: 'bench', REIN_HOME: home },
    permissionMode: 'bypass',
    adapter,
    // Registered after the built-in producers, so its preStep runs last: it marks when theirs are done.
    extensions: [{ name: 'bench-probe', preStep: (step) => void preStepDone.set(step.step, performance.now()) }],
  })
  // Time the read tool's own run so it can be subtracted; the schema is unchanged, so the header is too.
  agent.setTools(
    agent.toolList.map((tool) =>
      tool.name !== 'read'
        ? tool
        : {
            ...tool,
            async run(args, ctx) {
              const start = performance.now()
              try {
                return await tool.run(args, ctx)
              } finally {
                toolRuns.push([start, performance.now()])
              }
            },
          },
    ),
  )
  const session = agent.session
  const flush = session.flush.bind(session)
  session.flush = async () => {
    const start = performance.now()
    try {
      return await flush()
    } finally {
      flushes.push([start, performance.now()])
    }
  }
  let toolErrors = 0
  agent.subscribe((live) => {
    if (live.type !== 'event') return
    const { type, data } = live.event
    if (['assistant/message', 'tool/call', 'tool/result', 'step/end', 'request/sent'].includes(type)) {
      committed.set(`${type}:${data.step}`, performance.now())
    }
    if (type === 'tool/result' && data.isError) toolErrors++
  })

  agent.followUp('Read small.txt again and again.')
  const outcome = await agent.whenIdle()
  await agent.close()

  if (outcome?.reason !== 'completed') throw new Error(`the turn ended ${outcome?.reason}: ${outcome?.message ?? ''}`)
  if (mock.requests.length !== STEPS + 1) throw new Error(`expected ${STEPS + 1} requests, the mock received ${mock.requests.length}`)
  if (toolErrors) throw new Error(`${toolErrors} tool calls failed; the figures would not describe cheap successful steps`)
  if (toolRuns.length !== STEPS) throw new Error(`expected ${STEPS} tool runs, saw ${toolRuns.length}`)

  // Per step k (1-based), from the end of response k to the arrival of request k+1.
  const flushWithin = (from, to) =>
    flushes.reduce((sum, [s, e]) => (s >= from && e <= to ? sum + (e - s) : sum), 0)
  const rows = []
  for (let k = 1; k <= STEPS; k++) {
    const at = (type, step = k) => {
      const t = committed.get(`${type}:${step}`)
      if (t === undefined) throw new Error(`no ${type} was committed for step ${step}`)
      return t
    }
    const end = lastChunks[k - 1]
    const [toolStart, toolEnd] = toolRuns[k - 1]
    const arrival = arrivals[k]
    const tool = toolEnd - toolStart
    rows.push({
      overhead: arrival - end - tool,
      tool,
      flush: flushWithin(end, arrival),
      assemble: at('assistant/message') - end,
      preTool: at('tool/call') - at('assistant/message'),
      beforeRun: toolStart - at('tool/call'),
      afterRun: at('tool/result') - toolEnd,
      boundary: at('request/sent', k + 1) - at('tool/result'),
      stepEnd: at('step/end') - at('tool/result'),
      preStep: preStepDone.get(k + 1) - at('step/end'),
      derive: at('request/sent', k + 1) - preStepDone.get(k + 1),
      send: sends[k] - at('request/sent', k + 1),
      transit: arrival - sends[k],
    })
  }

  const sorted = (key) => rows.map((r) => r[key]).sort((a, b) => a - b)
  const pick = (values, q) => values[Math.min(values.length - 1, Math.ceil(q * values.length) - 1)]
  const median = (key) => pick(sorted(key), 0.5)
  const ms = (v) => `${v.toFixed(3)} ms`.padStart(10)
  const overhead = sorted('overhead')
  const med = pick(overhead, 0.5)

  console.log(`${STEPS}-step session, one read per step, JSONL log with fsync in ${tmpdir()}:`)
  console.log(`per-step overhead   median ${ms(med)}  p95 ${ms(pick(overhead, 0.95))}  max ${ms(overhead.at(-1))}`)
  console.log(`tool run (excluded) median ${ms(median('tool'))}`)
  console.log('where the median step goes (medians of each part; they need not add up exactly):')
  console.log(`  response end → assistant/message committed ${ms(median('assemble'))}`)
  console.log(`  assistant/message → tool/call (validate, preTool) ${ms(median('preTool'))}`)
  console.log(`  tool/call → tool starts (flush + fsync) ${ms(median('beforeRun'))}`)
  console.log(`  tool ends → tool/result (postTool, commit) ${ms(median('afterRun'))}`)
  console.log(`  tool/result → request/sent ${ms(median('boundary'))}, of which:`)
  console.log(`    tool/result → step/end ${ms(median('stepEnd'))}`)
  console.log(`    step/end → preStep listeners done (hooks, workspace instructions, runtime context, permissions) ${ms(median('preStep'))}`)
  console.log(`    preStep done → request/sent (enter, header, derive, encode + sha256, flush + fsync) ${ms(median('derive'))}`)
  console.log(`  request/sent → adapter.stream called ${ms(median('send'))}`)
  console.log(`  adapter.stream called → request body at the mock (HTTP over loopback) ${ms(median('transit'))}`)
  console.log(`  of the whole gap, flush + fsync ${ms(median('flush'))}  (${((median('flush') / med) * 100).toFixed(0)}% of the median overhead)`)
  console.log(`  the rest ${ms(pick(rows.map((r) => r.overhead - r.flush).sort((a, b) => a - b), 0.5))}`)
  const part = (from, to, key) => pick(rows.slice(from, to).map((r) => r[key]).sort((a, b) => a - b), 0.5)
  const bytes = (k) => Buffer.byteLength(JSON.stringify(mock.requests[k].body))
  console.log(
    `steps 1–50 vs 151–200: overhead ${ms(part(0, 50, 'overhead'))} vs ${ms(part(150, 200, 'overhead'))}, ` +
      `encode+flush ${ms(part(0, 50, 'derive'))} vs ${ms(part(150, 200, 'derive'))}, ` +
      `HTTP ${ms(part(0, 50, 'transit'))} vs ${ms(part(150, 200, 'transit'))} ` +
      `(request body ${bytes(1)} → ${bytes(STEPS)} bytes)`,
  )
  const core = pick(rows.map((r) => r.overhead - r.preStep).sort((a, b) => a - b), 0.5)
  console.log(`overhead without the preStep listeners: median ${ms(core)}`)
  const probes = []
  for (let i = 0; i < 20; i++) {
    const start = performance.now()
    await gitState(cwd)
    probes.push(performance.now() - start)
  }
  probes.sort((a, b) => a - b)
  console.log(`one git status probe (runtime context, every step), alone: median ${ms(pick(probes, 0.5))}  (${repo})`)
  // The same adapter and mock without the agent around them: how much of the HTTP part is the transport itself.
  const lone = []
  const body = real.body({ config: agent.config, system: 'x'.repeat(7000), tools: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] })
  mock.push({ text: 'ok', repeat: true })
  for (let i = 0; i < 50; i++) {
    const start = performance.now()
    for await (const chunk of real.stream(body)) void chunk
    lone.push(arrivals.at(-1) - start)
  }
  lone.sort((a, b) => a - b)
  console.log(`adapter → mock alone (7 KB body, no agent): median ${ms(pick(lone, 0.5))}`)
  console.log(`target: median under ${TARGET_MS} ms — ${med < TARGET_MS ? 'met' : 'MISSED'}`)
} catch (error) {
  failed = true
  console.error(`The overhead benchmark could not run: ${error instanceof Error ? error.message : String(error)}`)
} finally {
  await mock.close()
  rmSync(base, { recursive: true, force: true })
}
if (failed) process.exitCode = 1
