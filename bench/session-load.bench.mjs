// Load of a generated ~100 MB session log (prompts, reasoning, assistant text, long tool outputs). The load runs in
// a fresh child process so its peak RSS is the load's own. Targets: at most 1.5 s and 400 MB peak RSS.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Session } from '../dist/session/session.js'
import { JsonlStore } from '../dist/store/jsonl-store.js'
import { appendRealisticTurn, random } from './session-fixture.mjs'

const TARGET_BYTES = 100 * 1024 * 1024

if (process.argv[2] === '--load') {
  const [home, id] = process.argv.slice(3)
  const start = performance.now()
  const session = await Session.load(new JsonlStore(home), id)
  const ms = performance.now() - start
  const messages = session.messages().length
  console.log(JSON.stringify({ ms, events: session.length, messages, maxRssKb: process.resourceUsage().maxRSS }))
  await session.close()
} else {
  const home = mkdtempSync(join(tmpdir(), 'rein-bench-load-'))
  try {
    const session = await Session.create(new JsonlStore(home), { cwd: '/bench' })
    const rand = random(11)
    let bytes = 0
    let turn = 0
    while (bytes < TARGET_BYTES) {
      appendRealisticTurn(session, ++turn, rand, 6)
      await session.flush()
      if (turn % 50 === 0) bytes = statSync(session.path).size
    }
    await session.close()
    const size = statSync(session.path).size
    const runs = []
    for (let i = 0; i < 3; i++) {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--load', home, session.id], { encoding: 'utf8' })
      if (child.status !== 0) throw new Error(child.stderr)
      runs.push(JSON.parse(child.stdout))
    }
    const best = runs.reduce((a, b) => (a.ms <= b.ms ? a : b))
    const peak = Math.max(...runs.map((r) => r.maxRssKb))
    console.log(`load ${(size / 1024 / 1024).toFixed(1)} MB (${best.events.toLocaleString('en')} events, ${best.messages.toLocaleString('en')} messages)`)
    console.log(`load time:     ${(best.ms / 1000).toFixed(2)} s best of 3 (${runs.map((r) => (r.ms / 1000).toFixed(2)).join(', ')}), target ≤ 1.5 s`)
    console.log(`peak RSS:      ${Math.round(peak / 1024)} MB (whole process), target ≤ 400 MB`)
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}
