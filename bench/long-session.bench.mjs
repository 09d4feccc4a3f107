// The cost of one turn as a session grows, in one process: TURNS turns (default 3,000; LONG_SESSION_TURNS sets it),
// each a prompt, one `read` of a small file and a short answer, against the mock model in a child process (so its own
// O(request) work does not land on Rein's clock). A turn's cost is its wall time minus the time spent inside the
// model stream (request on the wire, the mock's work, the answer's bytes): what Rein itself does per turn — the log,
// the projection, encoding the body and its digest, context producers, the tool. Prints the median over a window of
// 21 turns at turns 250, 1,000 and 3,000, in wall time less the model stream and in this process's CPU time, and the
// ratio of the last to turn 250 in CPU time (robust to the machine's load).
// Goal (issue 36): turn 3,000 costs at most 1.5× turn 250. Needs the build. Loopback and temp dirs only.
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { openAgent } from '../dist/runtime/open.js'
import { createAdapter } from '../dist/llm/create.js'

const TURNS = Number(process.env.LONG_SESSION_TURNS ?? 3000)
const MARKS = [250, 1000, 3000].filter((m) => m <= TURNS)
const GOAL = 1.5
const WINDOW = 10
const here = dirname(fileURLToPath(import.meta.url))

const base = realpathSync(mkdtempSync(join(tmpdir(), 'rein-long-session-bench-')))
const home = join(base, 'home')
const cwd = join(base, 'repo')
mkdirSync(home, { recursive: true })
mkdirSync(cwd, { recursive: true })
if (spawnSync('git', ['init', '-q'], { cwd }).status !== 0) mkdirSync(join(cwd, '.git'))
writeFileSync(join(cwd, 'small.txt'), 'one line of text\n'.repeat(3))

// The mock in its own process, keeping no request bodies (a 3,000-turn session would otherwise hold every body).
const script = []
for (let i = 0; i < TURNS; i++) script.push({ toolCalls: [{ name: 'read', arguments: { file_path: 'small.txt' } }] }, { text: `Done ${i}.` })
const scriptFile = join(base, 'script.json')
writeFileSync(scriptFile, JSON.stringify(script))
const child = spawn(
  process.execPath,
  [
    '--input-type=module',
    '-e',
    `import { readFileSync } from 'node:fs'
     import { startMockModel } from ${JSON.stringify(join(here, '../dist/llm/mock/server.js'))}
     const mock = await startMockModel({ script: JSON.parse(readFileSync(process.argv[1], 'utf8')), recordBodies: false })
     console.log(mock.url)`,
    scriptFile,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
)
const url = await new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve))

let inStream = 0
const real = createAdapter({ wire: 'chat', baseUrl: url, apiKey: () => 'bench' })
const adapter = {
  wire: real.wire,
  headerConfig: (config) => real.headerConfig(config),
  body: (request) => real.body(request),
  // The chat wire's kept bytes and digest (body-bytes.ts): without this the agent would encode each body whole.
  encode: (request) => real.encode(request),
  // Time the consumer holds a chunk is Rein's, so only the waits for the next chunk count as the stream's.
  async *stream(body, options) {
    let mark = performance.now()
    for await (const chunk of real.stream(body, options)) {
      inStream += performance.now() - mark
      yield chunk
      mark = performance.now()
    }
    inStream += performance.now() - mark
  },
}

const costs = []
// CPU time of this process per turn (user + system): the mock and git run in child processes, so this is Rein's own
// work, and a loaded machine stretches it far less than wall time (issue 36: the last wall-time run was at load 20).
const cpu = []
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const at = (mark, xs = costs) => median(xs.slice(Math.max(0, mark - 1 - WINDOW), Math.min(xs.length, mark + WINDOW)))
try {
  const agent = await openAgent({
    cwd,
    home,
    env: { ...process.env, DEEPSEEK_BASE_URL: url, DEEPSEEK_API_KEY: 'bench', REIN_HOME: home },
    permissionMode: 'bypass',
    adapter,
  })
  for (let i = 0; i < TURNS; i++) {
    inStream = 0
    const start = performance.now()
    const cpuStart = process.cpuUsage()
    agent.followUp(`Turn ${i}: read small.txt.`)
    const outcome = await agent.whenIdle()
    if (outcome?.reason !== 'completed') throw new Error(`turn ${i} ended ${outcome?.reason}: ${outcome?.message ?? ''}`)
    costs.push(performance.now() - start - inStream)
    const used = process.cpuUsage(cpuStart)
    cpu.push((used.user + used.system) / 1000)
    // Each mark is printed as soon as its window is complete, so a run cut short still reports what it reached.
    for (const mark of MARKS) if (costs.length === Math.min(TURNS, mark + WINDOW)) console.log(`turn ${String(mark).padStart(5)}: ${at(mark).toFixed(1)} ms of Rein's own time, ${at(mark, cpu).toFixed(1)} ms CPU (load average ${loadavg()[0].toFixed(1)})`)
  }
  await agent.close()
} finally {
  child.kill()
  rmSync(base, { recursive: true, force: true })
}

console.log(`rss after ${TURNS} turns: ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`)
if (MARKS.length > 1) {
  const last = MARKS[MARKS.length - 1]
  const ratio = at(last, cpu) / at(250, cpu)
  console.log(`turn ${last} / turn 250, wall time less the model stream: ${(at(last) / at(250)).toFixed(2)}× (load-dependent)`)
  console.log(`turn ${last} / turn 250, CPU time: ${ratio.toFixed(2)}× (goal ≤ ${GOAL}×: ${ratio <= GOAL ? 'met' : 'NOT met'})`)
}
