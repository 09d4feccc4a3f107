// One build's side of bench/long-session.bench.mjs: opens an agent of the build at `root` against its own mock model
// (a child process), then runs one turn per `turn` line on stdin and answers each with one JSON line
// `{"wall","cpu"}` (ms: wall time less the model stream, and this process's CPU time); `end` closes the agent and
// answers `{"rss"}`. The first line, once the agent is open, is `{"ready":true}`. Nothing else is written to stdout.
// LONG_SESSION_PROFILE=<dir> writes a CPU profile of the 20 turns up to each mark (250, 1,000, 3,000 and every 500th
// turn) to <dir>/turn-<mark>-<pid>.cpuprofile, so an early and a late turn can be compared in one run.
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'
import { Session } from 'node:inspector/promises'

const PROFILE_TURNS = 20

export async function runWorker(root, turns) {
  const dist = (path) => pathToFileURL(join(root, 'dist', path)).href
  const { openAgent } = await import(dist('runtime/open.js'))
  const { createAdapter } = await import(dist('llm/create.js'))
  const reply = (value) => process.stdout.write(`${JSON.stringify(value)}\n`)

  const base = realpathSync(mkdtempSync(join(tmpdir(), 'rein-long-session-bench-')))
  const home = join(base, 'home')
  const cwd = join(base, 'repo')
  mkdirSync(home, { recursive: true })
  mkdirSync(cwd, { recursive: true })
  if (spawnSync('git', ['init', '-q'], { cwd }).status !== 0) mkdirSync(join(cwd, '.git'))
  writeFileSync(join(cwd, 'small.txt'), 'one line of text\n'.repeat(3))

  // The mock in its own process, keeping no request bodies (a 3,000-turn session would otherwise hold every body).
  const script = []
  for (let i = 0; i < turns; i++) script.push({ toolCalls: [{ name: 'read', arguments: { file_path: 'small.txt' } }] }, { text: `Done ${i}.` })
  const scriptFile = join(base, 'script.json')
  writeFileSync(scriptFile, JSON.stringify(script))
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { readFileSync } from 'node:fs'
       import { startMockModel } from ${JSON.stringify(dist('llm/mock/server.js'))}
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
    // A build's kept bytes and digest (body-bytes.ts), where it has them: without this the agent encodes each body whole.
    ...(real.encode ? { encode: (request) => real.encode(request) } : {}),
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

  const profiler = process.env.LONG_SESSION_PROFILE ? await profilerIn(process.env.LONG_SESSION_PROFILE) : undefined
  try {
    const agent = await openAgent({
      cwd,
      home,
      env: { ...process.env, DEEPSEEK_BASE_URL: url, DEEPSEEK_API_KEY: 'bench', REIN_HOME: home },
      permissionMode: 'bypass',
      adapter,
    })
    reply({ ready: true })
    let turn = 0
    for await (const line of createInterface({ input: process.stdin })) {
      if (line !== 'turn') break
      await profiler?.at(turn)
      inStream = 0
      const start = performance.now()
      const cpuStart = process.cpuUsage()
      agent.followUp(`Turn ${turn}: read small.txt.`)
      const outcome = await agent.whenIdle()
      const used = process.cpuUsage(cpuStart)
      if (outcome?.reason !== 'completed') {
        reply({ error: `turn ${turn} ended ${outcome?.reason}: ${outcome?.message ?? ''}` })
        break
      }
      reply({ wall: performance.now() - start - inStream, cpu: (used.user + used.system) / 1000 })
      turn++
    }
    // The last window ends with the last turn, before closing and clean-up.
    await profiler?.at(Infinity)
    await agent.close()
    reply({ rss: process.memoryUsage().rss })
  } finally {
    child.kill()
    rmSync(base, { recursive: true, force: true })
  }
  // Open handles (the store's timers, sockets) would keep the worker alive; exiting writes a `--cpu-prof` profile.
  process.exit(0)
}

/** Profiles the turns up to each mark; `at(turn)` is called before each turn and once after the last. */
async function profilerIn(dir) {
  mkdirSync(dir, { recursive: true })
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: 200 })
  let running
  return {
    async at(turn) {
      if (running !== undefined && turn >= running) {
        const { profile } = await session.post('Profiler.stop')
        writeFileSync(join(dir, `turn-${running}-${process.pid}.cpuprofile`), JSON.stringify(profile))
        running = undefined
      }
      // Turn numbers count from 1; `turn` is the index of the turn about to run.
      const mark = turn + PROFILE_TURNS
      if (running === undefined && (mark === 250 || mark === 1000 || mark % 500 === 0)) {
        await session.post('Profiler.start')
        running = mark
      }
    },
  }
}
