// What a checkpoint costs a step (src/checkpoints): a snapshot of a 10,000-file workspace when nothing changed since
// the last one, and after one file was edited, next to the targets of issue 22 (50 ms and 150 ms). Also the whole
// per-step overhead of a mutating step: the snapshot before its tools plus the diff after them. Needs the build
// (`npm run build`). Uses only a temp directory; the median of each set of rounds is printed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Checkpoints } from '../dist/checkpoints/engine.js'

const FILES = 10_000
const ROUNDS = 15
const root = mkdtempSync(join(tmpdir(), 'rein-checkpoint-bench-'))
const cwd = join(root, 'project')
for (let d = 0; d < 100; d++) {
  mkdirSync(join(cwd, `dir${d}`), { recursive: true })
  for (let f = 0; f < FILES / 100; f++) writeFileSync(join(cwd, `dir${d}`, `file${f}.ts`), `export const v${f} = ${d * f}\n`.repeat(20))
}
// Files written in the same second as the index are "racily clean" to git and re-read by every status until the
// index is written later; a real workspace's files are older than its snapshots, so the tree ages first.
await new Promise((resolve) => setTimeout(resolve, 1100))
const engine = new Checkpoints({ home: join(root, 'home'), cwd })

async function median(round) {
  const times = []
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now()
    await round(i)
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]
}

const first = performance.now()
await engine.snapshot()
const cold = performance.now() - first
const unchanged = await median(() => engine.snapshot())
const edited = await median(async (i) => {
  writeFileSync(join(cwd, 'dir7', 'file3.ts'), `export const edited = ${i}\n`)
  await engine.snapshot()
})
const step = await median(async (i) => {
  const before = await engine.snapshot()
  writeFileSync(join(cwd, 'dir9', 'file5.ts'), `export const step = ${i}\n`)
  await engine.compare(before.commit)
})

const row = (label, ms, target) => console.log(`${label.padEnd(42)} ${ms.toFixed(1).padStart(8)} ms   ${target}`)
console.log(`${FILES} files, median of ${ROUNDS} rounds`)
row('first snapshot (creates the repository)', cold, '(no target)')
row('snapshot, nothing changed', unchanged, 'target < 50 ms')
row('snapshot after one edit', edited, 'target < 150 ms')
row('per mutating step (snapshot + changes)', step, '(one edit between)')
rmSync(root, { recursive: true, force: true })
