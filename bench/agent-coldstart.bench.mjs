// Cold start of the built CLI, each a fresh `node` process: (1) `rein --version`, spawn to exit; (2) `rein -p "hi"`,
// spawn to the moment its first request reaches the mock model (and to exit); (3) `rein` (the terminal UI) in a
// pseudo-terminal (`script`), spawn to its first frame on screen (the session banner, drawn before ink loads:
// src/cli/tui/first-frame.ts), and to the moment ink has taken over with the agent open (the footer naming the model:
// from then on a key is handled at once). Targets (issue 24): -p to its request ≤ 250 ms, the UI's first frame
// ≤ 300 ms; each is printed beside its figure. Medians of RUNS runs, with the peak RSS
// of the child (`/usr/bin/time -f %M` when present, else the child's own `process.resourceUsage().maxRSS` written at
// exit by a preloaded module). Wall times are taken from runs without the RSS wrapper. Needs the build
// (`npm run build`). Loopback and temp dirs only.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { startMockModel } from '../dist/llm/mock/server.js'

const here = dirname(fileURLToPath(import.meta.url))
const CLI = join(here, '../dist/cli/main.js')
const RUNS = 10
const TIME = '/usr/bin/time'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'rein-coldstart-bench-')))
const home = join(base, 'home')
const cwd = join(base, 'repo')
mkdirSync(home, { recursive: true })
mkdirSync(join(cwd, '.git'), { recursive: true })
const rssFile = join(base, 'rss')
const preload = join(base, 'max-rss.mjs')
writeFileSync(
  preload,
  "import { writeFileSync } from 'node:fs'\n" +
    "process.on('exit', () => writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)))\n",
)
const useTime = existsSync(TIME)

/** Spawns the CLI; resolves with its exit code and the time from spawn to exit. `measureRss` wraps it to read peak RSS. */
function run(args, env, measureRss = false) {
  rmSync(rssFile, { force: true })
  let command = process.execPath
  let argv = [CLI, ...args]
  if (measureRss && useTime) {
    command = TIME
    argv = ['-f', '%M', '-o', rssFile, process.execPath, ...argv]
  } else if (measureRss) {
    argv = ['--import', pathToFileURL(preload).href, ...argv]
  }
  const started = performance.now()
  const child = spawn(command, argv, { cwd, env: { ...env, BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stdout.resume()
  child.stderr.on('data', (d) => (stderr += d))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      const elapsed = performance.now() - started
      if (code !== 0) return reject(new Error(`rein ${args.join(' ')} exited with ${code}: ${stderr.trim()}`))
      const rssKb = measureRss ? Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1)) : undefined
      resolve({ started, elapsed, rssKb })
    })
  })
}

const SCRIPT = '/usr/bin/script'
const PRINT_TARGET_MS = 250
const FRAME_TARGET_MS = 300

/**
 * Spawns the terminal UI in a 120×40 pseudo-terminal and resolves with the times from spawn to the first output that
 * shows text (the first frame) and to the footer (ink's frame, the agent open), then kills it.
 */
function firstFrame(env) {
  const shellQuote = (s) => `'${s.replaceAll("'", "'\\''")}'`
  const command = `stty cols 120 rows 40; exec ${[process.execPath, CLI, '--cwd', cwd].map(shellQuote).join(' ')}`
  const started = performance.now()
  const child = spawn(SCRIPT, ['-qfec', command, '/dev/null'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
  let seen = ''
  let frame
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no frame within 20 s; output: ${JSON.stringify(seen.slice(0, 200))}`)), 20_000)
    const finish = (error, times) => {
      clearTimeout(timer)
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
      child.once('close', () => (error ? reject(error) : resolve(times)))
    }
    child.stdout.on('data', (chunk) => {
      const at = performance.now()
      seen += chunk.toString('utf8')
      const text = seen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
      if (frame === undefined && /New session|Trust/.test(text)) frame = at - started
      if (frame !== undefined && /deepseek-\S+ · (off|low|high|max)/.test(text)) finish(undefined, { frame, ready: at - started })
    })
    child.on('error', reject)
  })
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]
const ms = (v) => `${v.toFixed(1)} ms`.padStart(9)
const mb = (kb) => `${(kb / 1024).toFixed(1)} MB`.padStart(8)
const rssHow = useTime ? '/usr/bin/time %M' : 'child maxRSS at exit'

const mock = await startMockModel({ script: [{ text: 'hello', repeat: true }] })
// The mock pushes each request onto `requests` once its body is read: that push is the arrival time.
const arrivals = []
mock.requests.push = function (...records) {
  arrivals.push(performance.now())
  return Array.prototype.push.apply(this, records)
}
let failed = false
try {
  const env = { ...process.env, DEEPSEEK_BASE_URL: mock.url, DEEPSEEK_API_KEY: 'bench', REIN_HOME: home }

  const version = []
  const versionRss = []
  for (let i = 0; i < RUNS; i++) version.push((await run(['--version'], env)).elapsed)
  for (let i = 0; i < RUNS; i++) versionRss.push((await run(['--version'], env, true)).rssKb)

  const toRequest = []
  const toExit = []
  const printRss = []
  for (let i = 0; i < RUNS; i++) {
    const before = arrivals.length
    const { started, elapsed } = await run(['-p', 'hi', '--cwd', cwd], env)
    if (arrivals.length !== before + 1) throw new Error(`rein -p "hi" made ${arrivals.length - before} requests, expected 1`)
    toRequest.push(arrivals[before] - started)
    toExit.push(elapsed)
  }
  for (let i = 0; i < RUNS; i++) printRss.push((await run(['-p', 'hi', '--cwd', cwd], env, true)).rssKb)

  console.log(`cold start, median of ${RUNS} runs each (peak RSS by ${rssHow}):`)
  console.log(`rein --version           ${ms(median(version))}  (min ${ms(Math.min(...version))})  peak RSS ${mb(median(versionRss))}`)
  console.log(`rein -p "hi" → request   ${ms(median(toRequest))}  (min ${ms(Math.min(...toRequest))})  peak RSS ${mb(median(printRss))}  target ≤ ${PRINT_TARGET_MS} ms`)
  console.log(`rein -p "hi" → exit      ${ms(median(toExit))}  (min ${ms(Math.min(...toExit))})`)
  if (existsSync(SCRIPT)) {
    const frames = []
    const ready = []
    for (let i = 0; i < RUNS; i++) {
      const times = await firstFrame(env)
      frames.push(times.frame)
      ready.push(times.ready)
    }
    console.log(`rein (UI) → first frame  ${ms(median(frames))}  (min ${ms(Math.min(...frames))})  target ≤ ${FRAME_TARGET_MS} ms`)
    console.log(`rein (UI) → ink, agent   ${ms(median(ready))}  (min ${ms(Math.min(...ready))})`)
  } else {
    console.log(`rein (UI) → first frame  not measured: ${SCRIPT} (util-linux) is needed for a pseudo-terminal`)
  }
  const bare = []
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now()
    await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' })
      child.on('error', reject)
      child.on('close', resolve)
    })
    bare.push(performance.now() - started)
  }
  console.log(`for scale: node -e 0     ${ms(median(bare))}`)
} catch (error) {
  failed = true
  console.error(`The cold-start benchmark could not run: ${error instanceof Error ? error.message : String(error)}`)
} finally {
  await mock.close()
  rmSync(base, { recursive: true, force: true })
}
if (failed) process.exitCode = 1
