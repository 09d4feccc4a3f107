// What the file-changes producer (src/context/file-changes.ts) costs per step: it stats every file the model has read
// or written. Figures for 20, 200 and 2,000 recorded files when nothing changed (the common step), and when one file
// changed (a formatter ran). Needs the build (`npm run build`). Uses only a temp directory.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileChanges } from '../dist/context/file-changes.js'

const dir = mkdtempSync(join(tmpdir(), 'rein-file-changes-bench-'))
const agent = { cwd: dir, session: { surface: () => [] } }
const step = { turn: 1, step: 2 }

async function perStep(count, changeOne) {
  const files = new Map()
  for (let i = 0; i < count; i++) {
    const path = join(dir, `f${i}.txt`)
    writeFileSync(path, `line ${i}\n`.repeat(50))
    const s = statSync(path)
    files.set(path, { size: s.size, mtimeMs: s.mtimeMs, sha256: '' })
  }
  if (changeOne) writeFileSync(join(dir, 'f0.txt'), 'reformatted\n')
  const producer = fileChanges(files)
  for (let i = 0; i < 10; i++) await producer.preStep(step, [], agent)
  const rounds = Math.max(20, Math.floor(20_000 / count))
  const start = performance.now()
  for (let i = 0; i < rounds; i++) await producer.preStep(step, [], agent)
  return (performance.now() - start) / rounds
}

console.log('recorded files   nothing changed   one file changed   (ms per step, mean)')
for (const count of [20, 200, 2000]) {
  const same = await perStep(count, false)
  const changed = await perStep(count, true)
  console.log(`${String(count).padStart(14)}   ${same.toFixed(3).padStart(15)}   ${changed.toFixed(3).padStart(16)}`)
}
rmSync(dir, { recursive: true, force: true })
