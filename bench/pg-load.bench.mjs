// Load of a ~100 MB session (BENCH_PG_MB, default 100) from the PostgreSQL store next to the JSONL store: each load
// in a fresh child process so its peak RSS is the load's own; best of 3. The session is written once as JSONL and
// imported into the database with `rein sessions import`'s code, so both stores hold the same bytes.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { importSession } from '../dist/cli/sessions/import.js'
import { Session } from '../dist/session/session.js'
import { JsonlStore } from '../dist/store/jsonl-store.js'
import { PostgresStore } from '../dist/store/postgres/store.js'
import { startPostgres } from './pg-server.mjs'
import { appendRealisticTurn, random } from './session-fixture.mjs'

const TARGET_BYTES = (Number(process.env.BENCH_PG_MB) || 100) * 1024 * 1024

if (process.argv[2] === '--load') {
  const [where, id] = process.argv.slice(3)
  const store = where.startsWith('postgres') ? new PostgresStore(where) : new JsonlStore(where)
  const start = performance.now()
  const session = await Session.load(store, id)
  const ms = performance.now() - start
  console.log(JSON.stringify({ ms, events: session.length, maxRssKb: process.resourceUsage().maxRSS }))
  await session.close()
  await store.close?.()
} else {
  const home = mkdtempSync(join(tmpdir(), 'rein-bench-pg-load-'))
  const server = await startPostgres({ durable: true })
  try {
    const session = await Session.create(new JsonlStore(home), { cwd: '/bench' })
    const rand = random(11)
    let turn = 0
    let bytes = 0
    while (bytes < TARGET_BYTES) {
      appendRealisticTurn(session, ++turn, rand, 6)
      await session.flush()
      if (turn % 50 === 0) bytes = statSync(session.path).size
    }
    await session.close()
    const size = statSync(session.path).size
    const pg = new PostgresStore(server.url)
    const importStart = performance.now()
    await importSession(pg, { path: session.path })
    const importSeconds = (performance.now() - importStart) / 1000
    await pg.close()
    const loads = (where) => {
      const runs = []
      for (let i = 0; i < 3; i++) {
        const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--load', where, session.id], { encoding: 'utf8' })
        if (child.status !== 0) throw new Error(child.stderr)
        runs.push(JSON.parse(child.stdout))
      }
      const best = runs.reduce((a, b) => (a.ms <= b.ms ? a : b))
      return { best, peak: Math.max(...runs.map((r) => r.maxRssKb)), all: runs.map((r) => (r.ms / 1000).toFixed(2)).join(', ') }
    }
    const viaPg = loads(server.url)
    const viaJsonl = loads(home)
    console.log(`session of ${(size / 1024 / 1024).toFixed(1)} MB, ${viaPg.best.events.toLocaleString('en')} events (import into PostgreSQL: ${importSeconds.toFixed(1)} s)`)
    console.log(`load, PostgreSQL: ${(viaPg.best.ms / 1000).toFixed(2)} s best of 3 (${viaPg.all}), peak RSS ${Math.round(viaPg.peak / 1024)} MB`)
    console.log(`load, JSONL:      ${(viaJsonl.best.ms / 1000).toFixed(2)} s best of 3 (${viaJsonl.all}), peak RSS ${Math.round(viaJsonl.peak / 1024)} MB`)
  } finally {
    server.stop()
    rmSync(home, { recursive: true, force: true })
  }
}
