// What showing a step's diff costs (src/checkpoints/step-diff.ts, as ACP and the web read it): the old text of the
// files a step changed read from its snapshot and the new text from the workspace, in a 10,000-file workspace, for a
// step that changed 3 files and one that changed 20 (ACP's cap). Needs the build (`npm run build`). Uses only a temp
// directory; the median of each set of rounds is printed. No target: it runs after the step, off the model's path.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Checkpoints } from '../dist/checkpoints/engine.js'
import { SnapshotFiles } from '../dist/checkpoints/file-at.js'
import { stepFiles, unifiedStepDiff } from '../dist/checkpoints/step-diff.js'

const FILES = 10_000
const ROUNDS = 15
const root = mkdtempSync(join(tmpdir(), 'rein-step-diff-bench-'))
const cwd = join(root, 'project')
for (let d = 0; d < 100; d++) {
  mkdirSync(join(cwd, `dir${d}`), { recursive: true })
  for (let f = 0; f < FILES / 100; f++) writeFileSync(join(cwd, `dir${d}`, `file${f}.ts`), `export const v${f} = ${d * f}\n`.repeat(20))
}
const engine = new Checkpoints({ home: join(root, 'home'), cwd })
const files = new SnapshotFiles(engine.gitDir, cwd)
const before = (await engine.snapshot()).commit

async function median(count) {
  const paths = Array.from({ length: count }, (_, i) => ({ path: `dir${i}/file${i}.ts`, kind: 'modified' }))
  for (const p of paths) writeFileSync(join(cwd, p.path), 'export const changed = true\n')
  const times = []
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now()
    unifiedStepDiff(await stepFiles(files, { before, paths, after: 'workspace' }))
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]
}

const row = (label, ms) => console.log(`${label.padEnd(42)} ${ms.toFixed(1).padStart(8)} ms`)
console.log(`${FILES} files, median of ${ROUNDS} rounds`)
row('diff of a step that changed 3 files', await median(3))
row('diff of a step that changed 20 files', await median(20))
rmSync(root, { recursive: true, force: true })
