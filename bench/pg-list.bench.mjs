// Listing 100,000 sessions (BENCH_PG_SESSIONS) in the PostgreSQL store: the newest page (50) of all sessions and of
// one directory, from the summary table's indexes; and the whole listing for scale. Rows are made in the database
// with generate_series (writing 100,000 sessions through the store would take minutes and measure appends, not
// listing). Target from the issue: newest page < 300 ms.
import pg from 'pg'
import { cwdKey } from '../dist/store/home.js'
import { PostgresStore } from '../dist/store/postgres/store.js'
import { startPostgres } from './pg-server.mjs'

const SESSIONS = Number(process.env.BENCH_PG_SESSIONS) || 100_000
const server = await startPostgres({ durable: true })
const store = new PostgresStore(server.url)
try {
  await store.migrated()
  const client = new pg.Client({ connectionString: server.url })
  await client.connect()
  const cwds = Array.from({ length: 100 }, (_, i) => `/work/repo-${i}`)
  const start = performance.now()
  await client.query(
    `INSERT INTO rein_sessions (id, cwd, cwd_key, created_at, updated_at, header, title, turns, bytes, records, summary)
     SELECT 's-' || n, c.cwd, c.key, t, t + n % 1000, json_build_object('type', 'session', 'version', 1, 'id', 's-' || n, 'createdAt', t, 'cwd', c.cwd),
            'title ' || n, n % 7, 1000 + n, 10,
            jsonb_build_object('lines', 10, 'id', 's-' || n, 'cwd', c.cwd, 'createdAt', t, 'updatedAt', t + n % 1000, 'turns', n % 7, 'title', 'title ' || n)
     FROM generate_series(1, $3::int) AS n
     CROSS JOIN LATERAL (SELECT 1700000000000::double precision + n * 1000 AS t) AS times
     JOIN unnest($1::text[], $2::text[]) WITH ORDINALITY AS c(cwd, key, i) ON c.i = 1 + n % 100`,
    [cwds, cwds.map((cwd) => cwdKey(cwd)), SESSIONS],
  )
  await client.query('ANALYZE rein_sessions')
  console.log(`made ${SESSIONS.toLocaleString('en')} sessions in ${((performance.now() - start) / 1000).toFixed(1)} s`)
  await client.end()

  const time = async (label, body) => {
    const runs = []
    let rows = 0
    for (let i = 0; i < 5; i++) {
      const t = performance.now()
      rows = (await body()).length
      runs.push(performance.now() - t)
    }
    runs.sort((a, b) => a - b)
    console.log(`${label.padEnd(48)} ${runs[2].toFixed(1).padStart(8)} ms median of 5 (${rows.toLocaleString('en')} rows)`)
  }
  await time('newest page (50) of all sessions:', () => store.summaryPage('all', 50))
  await time('newest page (50) of one directory:', () => store.summaryPage('/work/repo-7', 50))
  await time('whole listing of one directory:', () => store.summaries('/work/repo-7'))
  await time('whole listing of all sessions:', () => store.summaries('all'))
} finally {
  await store.close()
  server.stop()
}
