// `rein -p --resume` of a ~100 MB session, from spawn to its first request reaching the mock model, with the
// child's peak RSS: once reading the resume sidecar and the log's tail, once reading the whole log (the sidecar
// removed), side by side. The session is generated like session-load's (realistic turns, 1–24 KB tool outputs) but
// compacted whenever its surface passes ~3 MB, as a session in a 1M-token window is: the model sees a few MB, the
// log keeps 100. Targets (issue 24): ≤ 0.3 s and ≤ 120 MB with the sidecar. Medians of RUNS runs. Needs the build.
import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startMockModel } from '../dist/llm/mock/server.js'
import { Session } from '../dist/session/session.js'
import { JsonlStore } from '../dist/store/jsonl-store.js'
import { appendRealisticTurn, random } from './session-fixture.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const CLI = join(here, '../dist/cli/main.js')
const TARGET_BYTES = 100 * 1024 * 1024
const SURFACE_BYTES = 3 * 1024 * 1024
const RUNS = 5
const TIME = '/usr/bin/time'
const TARGET_MS = 300
const TARGET_MB = 120

if (process.argv[2] === '--load') {
  // Child mode: one `Session.load` (from the sidecar or not), its time and the process's peak RSS, as JSON.
  const [home, id, mode] = process.argv.slice(3)
  const started = performance.now()
  const session = await Session.load(new JsonlStore(home), id, { fromSidecar: mode === 'sidecar' })
  const ms = performance.now() - started
  const messages = session.messages().length
  console.log(JSON.stringify({ ms, messages, maxRssKb: process.resourceUsage().maxRSS }))
  await session.close()
  process.exit(0)
}

const base = mkdtempSync(join(tmpdir(), 'rein-bench-resume-'))
const cwd = join(base, 'repo')
mkdirSync(join(cwd, '.git'), { recursive: true })

/** Appends turns until the log passes 100 MB, compacting (a summary replacing the whole surface) every ~3 MB. */
async function generate(home) {
  const session = await Session.create(new JsonlStore(home), { cwd })
  const rand = random(11)
  let turn = 0
  let bytes = 0
  let surfaceFrom = 0
  while (bytes < TARGET_BYTES) {
    appendRealisticTurn(session, ++turn, rand, 6)
    await session.flush()
    if (turn % 10 !== 0) continue
    bytes = statSync(session.path).size
    if (bytes - surfaceFrom < SURFACE_BYTES) continue
    const surface = session.surface()
    const start = surface[0].seq
    const end = surface[surface.length - 1].seq
    session.append('turn/start', { turn: ++turn })
    session.append('step/start', { turn, step: 1 })
    session.append('compaction/start', { id: `c${turn}`, trigger: 'auto', start, end })
    session.append(
      'context/message',
      { id: `s${turn}`, content: [{ type: 'text', text: `Summary of turns up to ${turn}: the parser work continues.` }], source: { kind: 'compaction' } },
      { surfaceOp: { op: 'replace', start, end } },
    )
    session.append('compaction/end', { id: `c${turn}`, outcome: 'replaced' })
    session.append('step/end', { turn, step: 1 })
    session.append('turn/end', { turn, reason: 'completed' })
    await session.flush()
    surfaceFrom = bytes
  }
  await session.close()
  return session
}

/** Spawns `rein -p … --resume id`; resolves with the time from spawn to the mock's first request and the peak RSS. */
function resume(home, id, env, arrivals) {
  const rssFile = join(base, 'rss')
  rmSync(rssFile, { force: true })
  const useTime = existsSync(TIME)
  const argv = [CLI, '-p', 'what next?', '--resume', id, '--cwd', cwd]
  const command = useTime ? TIME : process.execPath
  const args = useTime ? ['-f', '%M', '-o', rssFile, process.execPath, ...argv] : argv
  const before = arrivals.length
  const started = performance.now()
  const child = spawn(command, args, { cwd, env: { ...env, REIN_HOME: home }, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`rein -p --resume exited with ${code}: ${stderr.trim()}`))
      if (arrivals.length !== before + 1) return reject(new Error(`expected one request, the mock got ${arrivals.length - before}`))
      const rssKb = useTime ? Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1)) : NaN
      resolve({ ms: arrivals[before] - started, rssKb })
    })
  })
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]
let failed = false
const mock = await startMockModel({ script: [{ text: 'Nothing more.', repeat: true }] })
const arrivals = []
mock.requests.push = function (...records) {
  arrivals.push(performance.now())
  return Array.prototype.push.apply(this, records)
}
try {
  const home = join(base, 'home')
  const session = await generate(home)
  const log = session.path
  const sidecar = `${log}.resume`
  if (!existsSync(sidecar)) throw new Error('the generated session has no sidecar')
  const plainHome = join(base, 'plain-home')
  const plainLog = join(plainHome, log.slice(home.length))
  mkdirSync(dirname(plainLog), { recursive: true })
  copyFileSync(log, plainLog)
  const env = { ...process.env, DEEPSEEK_BASE_URL: mock.url, DEEPSEEK_API_KEY: 'bench' }

  const withSidecar = []
  const fullRead = []
  for (let i = 0; i < RUNS; i++) {
    withSidecar.push(await resume(home, session.id, env, arrivals))
    rmSync(`${plainLog}.resume`, { force: true })
    fullRead.push(await resume(plainHome, session.id, env, arrivals))
  }
  const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`
  const row = (label, runs) => {
    const ms = median(runs.map((r) => r.ms))
    const rss = median(runs.map((r) => r.rssKb))
    return { label, ms, rss, text: `${label.padEnd(26)} ${`${(ms / 1000).toFixed(3)} s`.padStart(8)}  peak RSS ${mb(rss).padStart(7)}` }
  }
  const fast = row('resume from sidecar + tail', withSidecar)
  const slow = row('resume reading the whole log', fullRead)
  console.log(
    `rein -p --resume of a ${(statSync(log).size / 1024 / 1024).toFixed(1)} MB session (${session.length.toLocaleString('en')} events; ` +
      `sidecar ${(statSync(sidecar).size / 1024 / 1024).toFixed(1)} MB), spawn → first request, median of ${RUNS}:`,
  )
  console.log(`${fast.text}   target ≤ ${(TARGET_MS / 1000).toFixed(1)} s, ≤ ${TARGET_MB} MB`)
  console.log(`${slow.text}   (for comparison)`)
  const load = (loadHome, mode) => {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--load', loadHome, session.id, mode], { encoding: 'utf8' })
    if (child.status !== 0) throw new Error(child.stderr)
    return JSON.parse(child.stdout)
  }
  const loads = { sidecar: [], full: [] }
  for (let i = 0; i < RUNS; i++) {
    loads.sidecar.push(load(home, 'sidecar'))
    rmSync(`${plainLog}.resume`, { force: true })
    loads.full.push(load(plainHome, 'full'))
  }
  for (const [mode, runs] of Object.entries(loads)) {
    const ms = median(runs.map((r) => r.ms))
    const rss = median(runs.map((r) => r.maxRssKb))
    console.log(`Session.load alone, ${mode === 'sidecar' ? 'sidecar + tail' : 'whole log    '}   ${`${(ms / 1000).toFixed(3)} s`.padStart(8)}  peak RSS ${mb(rss).padStart(7)}`)
  }
  if (fast.ms > TARGET_MS || fast.rss / 1024 > TARGET_MB) console.log('above target on this run')
} catch (error) {
  failed = true
  console.error(`The resume benchmark could not run: ${error instanceof Error ? error.message : String(error)}`)
} finally {
  await mock.close()
  rmSync(base, { recursive: true, force: true })
}
if (failed) process.exitCode = 1
