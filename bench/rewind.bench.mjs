// What a rewind of the code costs (src/checkpoints/rewind-code.ts) in a 10,000-file workspace where the agent changed
// 10 files: the plan (compare the target with the workspace, which a dry run and the conflict check need), and the
// whole code rewind (plan, the `before` snapshot, and the restore), with and without a kept conflicting file. Needs
// the build (`npm run build`). Uses only a temp directory; the median of each set of rounds is printed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Checkpoints } from '../dist/checkpoints/engine.js'

const FILES = 10_000
const CHANGED = 10
const ROUNDS = 9
const root = mkdtempSync(join(tmpdir(), 'rein-rewind-bench-'))
const cwd = join(root, 'project')
for (let d = 0; d < 100; d++) {
  mkdirSync(join(cwd, `dir${d}`), { recursive: true })
  for (let f = 0; f < FILES / 100; f++) writeFileSync(join(cwd, `dir${d}`, `file${f}.ts`), `export const v${f} = ${d * f}\n`.repeat(20))
}
// Files as old as a real workspace's, so git does not re-read "racily clean" ones (see checkpoint.bench.mjs).
await new Promise((resolve) => setTimeout(resolve, 1100))
const engine = new Checkpoints({ home: join(root, 'home'), cwd })
const target = (await engine.snapshot()).commit
const agentEdits = (i) => {
  for (let c = 0; c < CHANGED; c++) writeFileSync(join(cwd, `dir${c}`, `file${c}.ts`), `export const agent = ${i}\n`)
}

async function median(round) {
  const times = []
  for (let i = 0; i < ROUNDS; i++) {
    agentEdits(i)
    const start = performance.now()
    await round()
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]
}

const plan = await median(() => engine.compare(target))
const full = await median(async () => {
  await engine.compare(target)
  await engine.snapshot('before rewind')
  await engine.restoreExcept(target, [])
})
const keeping = await median(async () => {
  await engine.compare(target)
  await engine.snapshot('before rewind')
  await engine.restoreExcept(target, ['dir0/file0.ts'])
})

const row = (label, ms) => console.log(`${label.padEnd(46)} ${ms.toFixed(1).padStart(8)} ms`)
console.log(`${FILES} files, ${CHANGED} changed by the agent, median of ${ROUNDS} rounds`)
row('rewind plan (dry run, conflict check)', plan)
row('code rewind (plan, before snapshot, restore)', full)
row('code rewind keeping one conflicting file', keeping)
rmSync(root, { recursive: true, force: true })
