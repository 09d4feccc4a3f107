// What the live list (`GET /api/stream`) costs `rein web` while nothing happens, with 1,000 sessions of one workspace
// in the JSONL store and one page connected: the server's CPU time over IDLE_S seconds (default 30) and how many
// times it re-listed the sessions in that time, then how long another process's append takes to reach the stream.
// Two ways of noticing other processes' changes, each on a fresh server and home:
//   timer  — the store offers no watch, so the list re-checks every 5 s (what every server did before the watch)
//   watch  — the store's fs.watch on the sessions folders (src/store/listing-watch.ts)
// Then the same on the PostgreSQL store (a private server, skipped when PostgreSQL is not installed or PG=0; JSONL=0
// skips the JSONL part), where the
// watch is a change query a second: re-lists and change queries counted, with the time each took.
// The load average it ran under is printed beside the figures.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../dist/session/session.js'
import { cwdKey } from '../dist/store/home.js'
import { JsonlStore } from '../dist/store/jsonl-store.js'
import { MemoryStore } from '../dist/store/memory-store.js'
import { PostgresStore } from '../dist/store/postgres/store.js'
import pg from 'pg'
import { postgresBin, startPostgres } from './pg-server.mjs'
import { startWebServer } from '../dist/web/server.js'
import { appendRealisticTurn, random } from './session-fixture.mjs'

const SESSIONS = Number(process.env.SESSIONS ?? 1_000)
const IDLE_S = Number(process.env.IDLE_S ?? 30)
const root = mkdtempSync(join(tmpdir(), 'rein-bench-web-list-idle-'))
const cwd = join(root, 'project')
mkdirSync(cwd, { recursive: true })

const memory = new MemoryStore()
const template = await Session.create(memory, { cwd, id: 'template' })
const rand = random(7)
for (let turn = 1; turn <= 2; turn++) appendRealisticTurn(template, turn, rand, 1)
await template.flush()
const [headerLine, ...eventLines] = memory.lines.get('template')
const body = `${eventLines.join('\n')}\n`

function makeHome(name) {
  const home = join(root, name)
  const dir = join(home, 'sessions', cwdKey(cwd))
  mkdirSync(dir, { recursive: true })
  const ids = []
  for (let i = 0; i < SESSIONS; i++) {
    const id = `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`
    writeFileSync(join(dir, `${id}.jsonl`), `${headerLine.replace('"template"', `"${id}"`)}\n${body}`)
    ids.push(id)
  }
  return { home, ids }
}

// Every listing of all sessions goes through JsonlStore.summaries('all'): count them.
let relists = 0
const summaries = JsonlStore.prototype.summaries
JsonlStore.prototype.summaries = function (which) {
  if (which === 'all') relists++
  return summaries.call(this, which)
}
const watchSummaries = JsonlStore.prototype.watchSummaries

async function measure(mode) {
  if (mode === 'timer') delete JsonlStore.prototype.watchSummaries
  else JsonlStore.prototype.watchSummaries = watchSummaries
  const { home, ids } = makeHome(`home-${mode}`)
  const server = await startWebServer({ root: cwd, home, port: 0 })
  const headers = { authorization: `Bearer ${server.token}` }
  try {
    await figuresKnown(server)
    const stream = (await fetch(`${server.origin}/api/stream`, { headers })).body.getReader()
    const decoder = new TextDecoder()
    let text = ''
    const nextEtag = async () => {
      for (;;) {
        const match = /data: (\{.*\})\n/.exec(text)
        if (match) {
          text = text.slice(match.index + match[0].length)
          return JSON.parse(match[1]).etag
        }
        const { value, done } = await stream.read()
        if (done) throw new Error('the list stream ended')
        text += decoder.decode(value)
      }
    }
    await nextEtag()
    const startRelists = relists
    const startCpu = process.cpuUsage()
    await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000))
    const cpu = process.cpuUsage(startCpu)
    const idleRelists = relists - startRelists

    // Another process appends (a store of its own, not the server's): how long until the stream names the change.
    const elsewhere = new JsonlStore(home)
    const session = await Session.load(elsewhere, ids[SESSIONS >> 1])
    const changed = nextEtag()
    const began = performance.now()
    session.append('session/title', { title: 'renamed by another process' })
    await session.close()
    await changed
    const latency = performance.now() - began
    await stream.cancel()
    return { cpuMs: (cpu.user + cpu.system) / 1000, idleRelists, latency }
  } finally {
    await server.close()
    rmSync(home, { recursive: true, force: true })
  }
}

/** Waits until every row's figures are known, so the idle time holds no catching up. */
async function figuresKnown(server) {
  const headers = { authorization: `Bearer ${server.token}` }
  while (JSON.parse(await (await fetch(`${server.origin}/api/sessions`, { headers })).text()).sessions.some((r) => r.pending)) {
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** One list stream on a server over `store`; resolves each next ETag. */
async function openStream(server) {
  const headers = { authorization: `Bearer ${server.token}` }
  const stream = (await fetch(`${server.origin}/api/stream`, { headers })).body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  return {
    cancel: () => stream.cancel(),
    next: async () => {
      for (;;) {
        const match = /data: (\{.*\})\n/.exec(text)
        if (match) {
          text = text.slice(match.index + match[0].length)
          return JSON.parse(match[1]).etag
        }
        const { value, done } = await stream.read()
        if (done) throw new Error('the list stream ended')
        text += decoder.decode(value)
      }
    },
  }
}

/** The PostgreSQL store: SESSIONS header-only sessions made in the database, then timer vs change query. */
async function measurePostgres() {
  const db = await startPostgres()
  try {
    const store = new PostgresStore(db.url)
    await store.migrated()
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    await client.query(
      `INSERT INTO rein_sessions (id, cwd, cwd_key, created_at, updated_at, header, bytes, records, summary)
       SELECT 's-' || n, $1, $2, t, t, json_build_object('type', 'session', 'version', 1, 'id', 's-' || n, 'createdAt', t, 'cwd', $1::text), 100, 1,
              jsonb_build_object('lines', 1, 'turns', 0, 'id', 's-' || n, 'cwd', $1::text, 'createdAt', t)
       FROM generate_series(1, $3::int) AS n CROSS JOIN LATERAL (SELECT 1700000000000::double precision + n AS t) AS times`,
      [cwd, cwdKey(cwd), SESSIONS],
    )
    await client.end()
    await store.close()
    let relists = 0
    let relistMs = 0
    const summaries = PostgresStore.prototype.summaries
    PostgresStore.prototype.summaries = async function (which) {
      const start = performance.now()
      try {
        return await summaries.call(this, which)
      } finally {
        relists++
        relistMs += performance.now() - start
      }
    }
    let queries = 0
    let queryMs = 0
    const query = pg.Pool.prototype.query
    pg.Pool.prototype.query = function (text, ...rest) {
      if (typeof text !== 'string' || !text.includes('hashtext')) return query.call(this, text, ...rest)
      const start = performance.now()
      return query.call(this, text, ...rest).finally(() => {
        queries++
        queryMs += performance.now() - start
      })
    }
    const watch = PostgresStore.prototype.watchSummaries
    for (const mode of ['timer', 'query']) {
      if (mode === 'timer') delete PostgresStore.prototype.watchSummaries
      else PostgresStore.prototype.watchSummaries = watch
      const server = await startWebServer({ root: cwd, home: join(root, `pg-home-${mode}`), port: 0, store: { url: db.url } })
      try {
        await figuresKnown(server)
        const stream = await openStream(server)
        await stream.next()
        const before = { relists, relistMs, queries, queryMs }
        const startCpu = process.cpuUsage()
        await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000))
        const cpu = process.cpuUsage(startCpu)
        const n = relists - before.relists
        const q = queries - before.queries
        console.log(
          `postgres ${mode.padEnd(5)}: server CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms, ${n} re-lists in ${IDLE_S} s idle (${n ? ((relistMs - before.relistMs) / n).toFixed(1) : '–'} ms each), ${q} change queries (${q ? ((queryMs - before.queryMs) / q).toFixed(1) : '–'} ms each); load ${loadavg()[0].toFixed(1)}`,
        )
        await stream.cancel()
      } finally {
        await server.close()
      }
    }
  } finally {
    await db.stop()
  }
}

try {
  console.log(`${SESSIONS.toLocaleString('en-US')} sessions of ${(Buffer.byteLength(body) / 1024).toFixed(0)} KB each, one list stream open, ${IDLE_S} s idle`)
  for (const mode of process.env.JSONL === '0' ? [] : ['timer', 'watch']) {
    const r = await measure(mode)
    console.log(
      `${mode.padEnd(5)}: server CPU ${r.cpuMs.toFixed(0)} ms over ${IDLE_S} s idle, ${r.idleRelists} re-lists; another process's append reached the stream in ${r.latency.toFixed(0)} ms; load ${loadavg()[0].toFixed(1)}`,
    )
  }
  if (process.env.PG !== '0' && postgresBin()) await measurePostgres()
  else console.log('PostgreSQL part skipped (PG=0, or no initdb found)')
} finally {
  rmSync(root, { recursive: true, force: true })
}
