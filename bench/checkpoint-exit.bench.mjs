// How long a short `rein -p` on a big workspace outlives its turn (issue 36): the session's only tool call is a read,
// and the workspace has no shadow repository yet, so the first staging (one `git add` of every file) starts in the
// background with that call and no mutating step ever needs it. Prints, for each build, the time from the turn's end
// (the answer reaching stdout) to the process's exit, and what the shadow repository looks like afterwards (no lock
// left, `git fsck` clean, HEAD as before the staging). Goal: the exit waits for no first snapshot (≤ 1 s after the
// turn's end, where it used to wait for git). Then a second run in the same workspace, whose first snapshot is
// redone. CHECKPOINT_EXIT_FILES (default 20,000; the figures in docs/checkpoints.md used 100,000),
// CHECKPOINT_EXIT_ROUNDS (default 3), CHECKPOINT_EXIT_BEFORE=<another build's dist/cli/main.js> runs that build
// too, rounds alternating. Needs the build (`npm run build`); loopback and temp directories only.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startMockModel } from '../dist/llm/mock/server.js'

const here = dirname(fileURLToPath(import.meta.url))
const builds = [{ name: 'now', cli: join(here, '../dist/cli/main.js') }]
if (process.env.CHECKPOINT_EXIT_BEFORE) builds.unshift({ name: 'before', cli: process.env.CHECKPOINT_EXIT_BEFORE })
const FILES = Number(process.env.CHECKPOINT_EXIT_FILES ?? 20_000)
const ROUNDS = Number(process.env.CHECKPOINT_EXIT_ROUNDS ?? 3)
const GOAL_MS = 1_000

const root = mkdtempSync(join(tmpdir(), 'rein-checkpoint-exit-'))
const cwd = join(root, 'project')
for (let d = 0; d < FILES / 100; d++) {
  const dir = join(cwd, `pkg${d % 50}`, `dir${d}`)
  mkdirSync(dir, { recursive: true })
  for (let f = 0; f < 100; f++) writeFileSync(join(dir, `file${f}.ts`), `export const v${f} = ${d * f}\n`.repeat(20))
}

/** One `rein -p` whose only tool call reads a file; resolves the ms from the answer on stdout to the exit. */
async function shortRun(cli, home) {
  const mock = await startMockModel({ script: [{ toolCalls: [{ name: 'read', arguments: { file_path: 'pkg0/dir0/file0.ts' } }] }, { text: 'Done.' }] })
  try {
    const child = spawn(process.execPath, [cli, '-p', 'look at one file', '--permission-mode', 'bypass'], {
      cwd,
      env: { ...process.env, DEEPSEEK_BASE_URL: mock.url, DEEPSEEK_API_KEY: 'bench', REIN_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let answered
    let stderr = ''
    child.stdout.on('data', () => (answered ??= performance.now()))
    child.stderr.on('data', (d) => (stderr += d))
    const code = await new Promise((resolve, reject) => {
      child.on('error', reject)
      child.on('close', resolve)
    })
    const exited = performance.now()
    if (code !== 0 || answered === undefined) throw new Error(`rein -p exited with ${code}: ${stderr.trim()}`)
    return exited - answered
  } finally {
    await mock.close()
  }
}

/** What the shadow repository holds after the run: locks left, whether git reads it cleanly, its HEAD. */
function shadowState(home) {
  const base = join(home, 'checkpoints')
  if (!existsSync(base)) return 'no shadow repository'
  const [key] = readdirSync(base)
  const gitDir = join(base, key)
  const locks = readdirSync(gitDir).filter((name) => name.endsWith('.lock')).length
  let fsck = 'clean'
  try {
    execFileSync('git', ['--git-dir', gitDir, 'fsck', '--no-dangling', '--connectivity-only'], { stdio: ['ignore', 'ignore', 'pipe'] })
  } catch (error) {
    fsck = `fsck failed: ${String(error.stderr).trim().split('\n')[0]}`
  }
  let head = 'none'
  try {
    head = execFileSync('git', ['--git-dir', gitDir, 'rev-parse', '--verify', '--quiet', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim().slice(0, 12)
  } catch {
    // No snapshot yet: HEAD names no commit.
  }
  return `locks left ${locks}, git ${fsck}, HEAD ${head}`
}

console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${FILES} files, a read-only \`rein -p\` with no shadow repository yet`)
const lags = Object.fromEntries(builds.map((b) => [b.name, []]))
let state = {}
for (let i = 0; i < ROUNDS; i++) {
  for (const build of builds) {
    const home = join(root, `home-${build.name}-${i}`)
    mkdirSync(home)
    lags[build.name].push(await shortRun(build.cli, home))
    state[build.name] = shadowState(home)
    // The same workspace again: its first snapshot, abandoned above, is redone (and the run exits as soon).
    if (i === 0) state[`${build.name} again`] = `${(await shortRun(build.cli, home)).toFixed(0)} ms; ${shadowState(home)}`
    rmSync(home, { recursive: true, force: true })
  }
}
const median = (times) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]
for (const build of builds) {
  const lag = median(lags[build.name])
  const goal = build.name === 'now' ? `  goal ≤ ${GOAL_MS} ms: ${lag <= GOAL_MS ? 'met' : 'NOT met'}` : ''
  console.log(`${build.name.padStart(7)}: turn end → exit ${lag.toFixed(0)} ms (median of ${ROUNDS}; ${lags[build.name].map((l) => l.toFixed(0)).join(', ')})${goal}`)
  console.log(`${''.padStart(7)}  shadow repository after the exit: ${state[build.name]}`)
  console.log(`${''.padStart(7)}  a second run in it: ${state[`${build.name} again`]}`)
}
rmSync(root, { recursive: true, force: true, maxRetries: 5 })
