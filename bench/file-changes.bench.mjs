// What the file-changes producer (src/context/file-changes.ts) costs per step. After a step whose tools could write
// it stats every file the model has read or written; after a read-only step it checks nothing. Figures for 20, 200
// and 2,000 recorded files: a read-only step, a step after a write when nothing changed, and when one file changed
// (a formatter ran); then the reminder's size for 1,000 changed files (goal: capped, issue 36: 35 KB before). Needs the build (`npm run build`). Uses only a temp directory.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileChanges, fileChangesText } from '../dist/context/file-changes.js'
import { offerFeed, watchTree, withdrawFeed } from '../dist/fs/change-feed.js'

const dir = mkdtempSync(join(tmpdir(), 'rein-file-changes-bench-'))
const agent = { cwd: dir, session: { surface: () => [] } }
const step = { turn: 1, step: 2 }

async function perStep(count, changeOne, afterWrite = true, withFeed = false) {
  const files = new Map()
  for (let i = 0; i < count; i++) {
    const path = join(dir, `f${i}.txt`)
    writeFileSync(path, `line ${i}\n`.repeat(50))
    const s = statSync(path)
    files.set(path, { size: s.size, mtimeMs: s.mtimeMs, sha256: '' })
  }
  if (changeOne) writeFileSync(join(dir, 'f0.txt'), 'reformatted\n')
  const producer = fileChanges(files)
  // The change feed the checkpoints start for a workspace (src/fs/change-feed.ts): only what it saw written is stat-ed.
  const feed = withFeed ? watchTree(dir) : undefined
  if (feed) {
    await feed.ready
    offerFeed(dir, feed, () => false)
  }
  for (let i = 0; i < 10; i++) {
    producer.postTool({ tool: { readOnly: false } })
    await producer.preStep(step, [], agent)
  }
  const rounds = Math.max(20, Math.floor(20_000 / count))
  const start = performance.now()
  for (let i = 0; i < rounds; i++) {
    if (afterWrite) producer.postTool({ tool: { readOnly: false } })
    await producer.preStep(step, [], agent)
    // With a feed, one file is written each round (a formatter after each step): the check stats that one.
    if (feed) writeFileSync(join(dir, 'f1.txt'), `line ${i}\n`)
  }
  const perRound = (performance.now() - start) / rounds
  if (feed) {
    withdrawFeed(dir, feed)
    feed.close()
  }
  return perRound
}

console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`)
console.log('recorded files   read-only step   nothing changed   one file changed   change feed, one written   (ms per step, mean)')
const fed = []
const stated = []
for (const count of [20, 200, 2000]) {
  const readOnly = await perStep(count, false, false)
  const same = await perStep(count, false)
  const changed = await perStep(count, true)
  const feed = await perStep(count, false, true, true)
  fed.push(feed)
  stated.push(same)
  console.log(`${String(count).padStart(14)}   ${readOnly.toFixed(3).padStart(14)}   ${same.toFixed(3).padStart(15)}   ${changed.toFixed(3).padStart(16)}   ${feed.toFixed(3).padStart(24)}`)
}
console.log(`a writing step at 2,000 recorded files: ${fed[2].toFixed(1)} ms with a change feed (one file written), ${stated[2].toFixed(1)} ms stat-ing every file (goal: O(changed files))`)
const thousand = Array.from({ length: 1000 }, (_, i) => ({ path: join(dir, `src/module-${i}/index.ts`), deleted: true }))
console.log(`reminder for 1,000 changed files: ${Buffer.byteLength(fileChangesText(thousand, dir))} bytes (goal: capped; 35 KB before)`)
rmSync(dir, { recursive: true, force: true })
