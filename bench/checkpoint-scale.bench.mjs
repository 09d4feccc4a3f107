// What checkpoints cost a step as the workspace grows (issue 36): at 1K, 10K and 50K files (CHECKPOINT_SCALE_100K=1
// adds 100K, which takes minutes; CHECKPOINT_SCALE_FILES=1000,20000 picks the sizes), the first snapshot of the
// workspace, a snapshot when nothing changed, and a mutating step (the snapshot before its tools, one file written,
// the listing of what changed after them), each beside one plain `git status` of the same tree (the workspace is a
// git repository of its own, as most are). Goal: a mutating step costs at most 1.5× one `git status`.
// Needs the build (`npm run build`); temp directories only; medians of ROUNDS rounds. CHECKPOINT_SCALE_BEFORE=<path
// of another build's dist/checkpoints/engine.js> runs that engine too, on the same trees, rounds alternating, so a
// before/after comparison sees the same load (the figures in docs/checkpoints.md were taken that way).
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Checkpoints } from '../dist/checkpoints/engine.js'
import { checkpointExtension } from '../dist/checkpoints/extension.js'

const engines = [{ name: 'now', Checkpoints }]
if (process.env.CHECKPOINT_SCALE_BEFORE) {
  const before = await import(pathToFileURL(process.env.CHECKPOINT_SCALE_BEFORE).href)
  engines.unshift({ name: 'before', Checkpoints: before.Checkpoints })
}

const GOAL = 1.5
const ROUNDS = Number(process.env.CHECKPOINT_SCALE_ROUNDS ?? 7)
const sizes = process.env.CHECKPOINT_SCALE_FILES
  ? process.env.CHECKPOINT_SCALE_FILES.split(',').map(Number)
  : [1_000, 10_000, 50_000, ...(process.env.CHECKPOINT_SCALE_100K ? [100_000] : [])]

const median = (times) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]

// No automatic gc or maintenance in the workspace's repository: a detached one would still be writing at cleanup.
const git = (cwd, ...args) => execFileSync('git', ['-c', 'gc.auto=0', '-c', 'maintenance.auto=false', ...args], { cwd, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 28 })

console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`)
console.log(`${'files'.padStart(7)} ${'engine'.padStart(7)} ${'first snapshot'.padStart(15)} ${'unchanged'.padStart(10)} ${'step'.padStart(9)} ${'after step'.padStart(11)} ${'git status'.padStart(11)} ${'step/status'.padStart(12)}`)
let worst = 0
for (const files of sizes) {
  const root = mkdtempSync(join(tmpdir(), 'rein-checkpoint-scale-'))
  const cwd = join(root, 'project')
  const perDir = 100
  for (let d = 0; d < files / perDir; d++) {
    const dir = join(cwd, `pkg${d % 50}`, `dir${d}`)
    mkdirSync(dir, { recursive: true })
    for (let f = 0; f < perDir; f++) writeFileSync(join(dir, `file${f}.ts`), `export const v${f} = ${d * f}\n`.repeat(20))
  }
  git(cwd, 'init', '-q')
  git(cwd, '-c', 'user.name=b', '-c', 'user.email=b@b', 'add', '-A')
  git(cwd, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'base')
  // Files written in the same second as an index are "racily clean" and re-read until a later index write; a real
  // workspace's files are older than its snapshots, so the tree ages first.
  await new Promise((resolve) => setTimeout(resolve, 1100))
  git(cwd, 'status', '--porcelain')
  const runs = engines.map(({ name, Checkpoints: Engine }) => ({ name, engine: new Engine({ home: join(root, `home-${name}`), cwd, sessionId: 'scale-bench' }), times: { unchanged: [], step: [], after: [] } }))
  for (const run of runs) {
    const started = performance.now()
    // A session opens: the engine starts its change feed and its first staging (an engine without one: nothing).
    run.engine.watch?.()
    await run.engine.snapshot()
    run.first = performance.now() - started
  }
  const status = []
  for (let i = 0; i < ROUNDS; i++) {
    let start = performance.now()
    git(cwd, 'status', '--porcelain')
    status.push(performance.now() - start)
    // Each engine writes a file of its own, so each sees the other's write as one more changed path: the same work.
    for (const [n, run] of runs.entries()) {
      await run.engine.snapshot()
      start = performance.now()
      await run.engine.snapshot()
      run.times.unchanged.push(performance.now() - start)
      start = performance.now()
      // The step as the extension runs it: the snapshot may reuse the last listing while the feed is quiet, and the
      // listing's index writes run after the step (while the model thinks), timed apart as `after`.
      const before = await run.engine.snapshot('step', { reuse: true })
      writeFileSync(join(cwd, 'pkg3', 'dir3', `file${n}.ts`), `export const step = ${i}\n`)
      await (run.engine.stepChanges ? run.engine.stepChanges(before.commit) : run.engine.compare(before.commit))
      run.times.step.push(performance.now() - start)
      start = performance.now()
      await run.engine.settled?.()
      run.times.after.push(performance.now() - start)
    }
  }
  const floor = median(status)
  const ms = (v) => `${v.toFixed(0)} ms`
  for (const run of runs) {
    const step = median(run.times.step)
    const ratio = step / floor
    if (run.name === 'now') worst = Math.max(worst, ratio)
    console.log(`${String(files).padStart(7)} ${run.name.padStart(7)} ${ms(run.first).padStart(15)} ${ms(median(run.times.unchanged)).padStart(10)} ${ms(step).padStart(9)} ${ms(median(run.times.after)).padStart(11)} ${ms(floor).padStart(11)} ${`${ratio.toFixed(2)}×`.padStart(12)}  goal ≤ ${GOAL}×${run.name === 'now' && run.engine.reused !== undefined ? `  (walks saved: ${run.engine.reused})` : ''}`)
  }
  for (const run of runs) run.engine.close?.()
  rmSync(root, { recursive: true, force: true, maxRetries: 5 })
}
// A step whose tools are all read-only: the extension makes no engine call for it (so no git process, no walk). The
// session's first tool call of any kind starts the change feed and the first staging once (`watch`, which later calls
// return from at once); test/checkpoints/read-only-step.test.ts counts the git processes of a whole turn.
const calls = []
const counting = new Proxy({}, { get: (_target, name) => (...args) => (calls.push(String(name)), Promise.resolve(args)) })
const extension = checkpointExtension({ engine: counting })
const readOnly = { turn: 1, step: 1, callId: 'c1', tool: { readOnly: true, category: 'read' } }
for (let i = 0; i < 100; i++) {
  await extension.preTool?.(readOnly, {})
  await extension.postTool?.(readOnly, { content: [] }, {})
}
const perStep = calls.filter((name) => name !== 'watch')
console.log(`read-only step: ${perStep.length} engine calls, so no git process (goal: 0: ${perStep.length === 0 ? 'met' : 'NOT met'})`)
console.log(`worst step / git status: ${worst.toFixed(2)}× (goal ≤ ${GOAL}×: ${worst <= GOAL ? 'met' : 'NOT met'})`)
