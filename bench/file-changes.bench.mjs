// What the file-changes producer (src/context/file-changes.ts) costs per step. After a step whose tools could write
// it stats every file the model has read or written; after a read-only step it checks nothing. Figures for 20, 200
// and 2,000 recorded files: a read-only step, a step after a write when nothing changed, and when one file changed
// (a formatter ran); then the reminder's size for 1,000 changed files (goal: capped, issue 36: 35 KB before). Needs the build (`npm run build`). Uses only a temp directory.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileChanges, fileChangesText } from '../dist/context/file-changes.js'

const dir = mkdtempSync(join(tmpdir(), 'rein-file-changes-bench-'))
const agent = { cwd: dir, session: { surface: () => [] } }
const step = { turn: 1, step: 2 }

async function perStep(count, changeOne, afterWrite = true) {
  const files = new Map()
  for (let i = 0; i < count; i++) {
    const path = join(dir, `f${i}.txt`)
    writeFileSync(path, `line ${i}\n`.repeat(50))
    const s = statSync(path)
    files.set(path, { size: s.size, mtimeMs: s.mtimeMs, sha256: '' })
  }
  if (changeOne) writeFileSync(join(dir, 'f0.txt'), 'reformatted\n')
  const producer = fileChanges(files)
  for (let i = 0; i < 10; i++) {
    producer.postTool({ tool: { readOnly: false } })
    await producer.preStep(step, [], agent)
  }
  const rounds = Math.max(20, Math.floor(20_000 / count))
  const start = performance.now()
  for (let i = 0; i < rounds; i++) {
    if (afterWrite) producer.postTool({ tool: { readOnly: false } })
    await producer.preStep(step, [], agent)
  }
  return (performance.now() - start) / rounds
}

console.log('recorded files   read-only step   nothing changed   one file changed   (ms per step, mean)')
for (const count of [20, 200, 2000]) {
  const readOnly = await perStep(count, false, false)
  const same = await perStep(count, false)
  const changed = await perStep(count, true)
  console.log(`${String(count).padStart(14)}   ${readOnly.toFixed(3).padStart(14)}   ${same.toFixed(3).padStart(15)}   ${changed.toFixed(3).padStart(16)}`)
}
const thousand = Array.from({ length: 1000 }, (_, i) => ({ path: join(dir, `src/module-${i}/index.ts`), deleted: true }))
console.log(`reminder for 1,000 changed files: ${Buffer.byteLength(fileChangesText(thousand, dir))} bytes (goal: capped; 35 KB before)`)
rmSync(dir, { recursive: true, force: true })
