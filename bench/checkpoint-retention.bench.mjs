// What retention costs (src/checkpoints/retention.ts): the check every session open makes (is retention due?), and a
// prune of a 10,000-file workspace's shadow repository holding 40 sessions' snapshots, 30 of them old enough to go,
// with the bytes it freed. Needs the build (`npm run build`). Uses only a temp directory.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Checkpoints } from '../dist/checkpoints/engine.js'
import { pruneRepository } from '../dist/checkpoints/retention.js'
import { retentionDue, startRetention } from '../dist/checkpoints/retention-schedule.js'

const FILES = 10_000
const SESSIONS = 40
const OLD = 30
const DAY = 24 * 60 * 60 * 1000
const root = mkdtempSync(join(tmpdir(), 'rein-retention-bench-'))
const cwd = join(root, 'project')
const home = join(root, 'home')
for (let d = 0; d < 100; d++) {
  mkdirSync(join(cwd, `dir${d}`), { recursive: true })
  for (let f = 0; f < FILES / 100; f++) writeFileSync(join(cwd, `dir${d}`, `file${f}.ts`), `export const v${f} = ${d * f}\n`.repeat(20))
}
await new Promise((resolve) => setTimeout(resolve, 1100))

// Each session edits a few files with content of its own (about 40 KiB), then snapshots.
let gitDir = ''
for (let s = 0; s < SESSIONS; s++) {
  const engine = new Checkpoints({ home, cwd, sessionId: `session-${String(s).padStart(2, '0')}` })
  gitDir = engine.gitDir
  for (let k = 0; k < 10; k++) writeFileSync(join(cwd, `dir${k}`, `file${s}.ts`), `// session ${s}\n${'x'.repeat(4096)}${Math.random()}\n`)
  await engine.snapshot()
}
// The first 30 sessions look 60 days old: their refs point at commits of the same trees dated back, and every object
// file is dated back too, so the gc may collect them.
const git = (args, env = {}) => execFileSync('git', ['--git-dir', gitDir, ...args], { env: { ...process.env, ...env } }).toString().trim()
const when = `${Math.floor((Date.now() - 60 * DAY) / 1000)} +0000`
for (let s = 0; s < OLD; s++) {
  const ref = `refs/rein/sessions/session-${String(s).padStart(2, '0')}`
  const tree = git(['rev-parse', `${ref}^{tree}`])
  const commit = git(['commit-tree', tree, '-m', 'old'], { GIT_COMMITTER_DATE: when, GIT_AUTHOR_DATE: when, GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b' })
  git(['update-ref', ref, commit])
}
const past = new Date(Date.now() - 60 * DAY)
const age = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) age(path)
    else utimesSync(path, past, past)
  }
}
age(join(gitDir, 'objects'))

const rounds = 1000
let start = performance.now()
for (let i = 0; i < rounds; i++) retentionDue(gitDir, Date.now())
const dueCheck = (performance.now() - start) / rounds
writeFileSync(join(gitDir, 'rein-retention-stamp'), `${Date.now()}\n`)
start = performance.now()
for (let i = 0; i < rounds; i++) startRetention({ home, cwd, rules: { keepSessions: 10, keepDays: 30 }, keep: 'x' })
const notDue = (performance.now() - start) / rounds

start = performance.now()
const report = await pruneRepository({ gitDir, rules: { keepSessions: 10, keepDays: 30 }, now: Date.now(), gc: 'wait' })
const prune = performance.now() - start

const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
const row = (label, value) => console.log(`${label.padEnd(52)} ${value}`)
console.log(`${FILES} files, ${SESSIONS} sessions (${OLD} of them 60 days old), keep 10 sessions or 30 days`)
row('is retention due? (on every session open)', `${(dueCheck * 1000).toFixed(1)} µs`)
row('session open when retention is not due', `${(notDue * 1000).toFixed(1)} µs`)
row(`prune: ${report.removed.length} sessions' refs and git gc`, `${prune.toFixed(0)} ms`)
row('shadow repository before / after', `${mib(report.bytesBefore)} / ${mib(report.bytesAfter ?? 0)}`)
rmSync(root, { recursive: true, force: true })
