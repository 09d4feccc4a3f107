// Append throughput to the PostgreSQL store: one writer, and 16 sessions written at once, each flushing every 10
// events (about one step); the JSONL store beside it for scale. The server keeps fsync on (durable), as a shared
// database would. Sizes: BENCH_PG_EVENTS events per writer (default 5,000 alone, a tenth of that per concurrent
// session, so the 2-core machine finishes in seconds).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../dist/session/session.js'
import { JsonlStore } from '../dist/store/jsonl-store.js'
import { PostgresStore } from '../dist/store/postgres/store.js'
import { startPostgres } from './pg-server.mjs'
import { appendRealisticTurn, random } from './session-fixture.mjs'

const EVENTS = Number(process.env.BENCH_PG_EVENTS) || 5_000
const FLUSH_EVERY = 10

async function fill(session, events, seed) {
  const rand = random(seed)
  let turn = 0
  let flushedAt = 0
  while (session.length < events) {
    appendRealisticTurn(session, ++turn, rand, 3)
    if (session.length - flushedAt >= FLUSH_EVERY) {
      await session.flush()
      flushedAt = session.length
    }
  }
  await session.close()
  return session.length
}

async function measure(store, writers, eventsEach) {
  const sessions = await Promise.all(Array.from({ length: writers }, () => Session.create(store, { cwd: '/bench' })))
  const start = performance.now()
  const counts = await Promise.all(sessions.map((session, i) => fill(session, eventsEach, 7 + i)))
  const seconds = (performance.now() - start) / 1000
  const events = counts.reduce((a, b) => a + b, 0)
  return { rate: events / seconds, events }
}

const server = await startPostgres({ durable: true })
const home = mkdtempSync(join(tmpdir(), 'rein-bench-pg-append-'))
const pg = new PostgresStore(server.url)
try {
  const show = (label, r) => console.log(`${label.padEnd(44)} ${Math.round(r.rate).toLocaleString('en').padStart(8)} events/s (${r.events.toLocaleString('en')} events)`)
  show('append, PostgreSQL, 1 writer, flush/10:', await measure(pg, 1, EVENTS))
  show('append, PostgreSQL, 16 sessions at once:', await measure(pg, 16, EVENTS / 10))
  const jsonl = new JsonlStore(home)
  show('append, JSONL, 1 writer, flush/10:', await measure(jsonl, 1, EVENTS))
  show('append, JSONL, 16 sessions at once:', await measure(jsonl, 16, EVENTS / 10))
} finally {
  await pg.close()
  server.stop()
  rmSync(home, { recursive: true, force: true })
}
