// Listing 1,000 sessions of one directory: cold (no index yet: each file's line starts are scanned), warm (index
// current: only stat), and after 10 sessions grew (only their new bytes are scanned). Target: under 300 ms.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../dist/session/session.js'
import { cwdKey } from '../dist/store/home.js'
import { listSessions } from '../dist/store/listing.js'
import { JsonlStore } from '../dist/store/jsonl-store.js'
import { MemoryStore } from '../dist/store/memory-store.js'
import { appendRealisticTurn, random } from './session-fixture.mjs'

const SESSIONS = 1000
const home = mkdtempSync(join(tmpdir(), 'rein-bench-list-'))
try {
  // One template session of three turns (about 100 KB), written 1,000 times under different ids.
  const memory = new MemoryStore()
  const template = await Session.create(memory, { cwd: '/bench', id: 'template' })
  const rand = random(3)
  for (let turn = 1; turn <= 3; turn++) appendRealisticTurn(template, turn, rand, 3)
  await template.flush()
  const [headerLine, ...eventLines] = memory.lines.get('template')
  const body = `${eventLines.join('\n')}\n`
  const dir = join(home, 'sessions', cwdKey('/bench'))
  mkdirSync(dir, { recursive: true })
  const ids = []
  for (let i = 0; i < SESSIONS; i++) {
    const id = `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`
    ids.push(id)
    writeFileSync(join(dir, `${id}.jsonl`), `${headerLine.replace('"template"', `"${id}"`)}\n${body}`)
  }
  const time = async (label) => {
    const start = performance.now()
    const listed = await listSessions(new JsonlStore(home), '/bench')
    const ms = performance.now() - start
    if (listed.length !== SESSIONS) throw new Error(`listed ${listed.length} sessions, expected ${SESSIONS}`)
    console.log(`${label.padEnd(34)}${ms.toFixed(0)} ms, target < 300 ms`)
  }
  console.log(`1,000 sessions of ${(Buffer.byteLength(body) / 1024).toFixed(0)} KB each`)
  await time('list, cold (no index):')
  await time('list, warm (index current):')
  for (const id of ids.slice(0, 10)) appendFileSync(join(dir, `${id}.jsonl`), body)
  await time('list, 10 sessions grew:')
} finally {
  rmSync(home, { recursive: true, force: true })
}
