import { spawn } from 'node:child_process'
import { hostname } from 'node:os'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { Session } from '../../src/session/session.js'
import { inTransaction } from '../../src/store/postgres/connection.js'
import { MIGRATIONS } from '../../src/store/postgres/migrations.js'
import { PostgresStore } from '../../src/store/postgres/store.js'
import { freshDatabase, onDatabase, postgresUrl } from '../support/postgres-db.js'

/** What only the PostgreSQL store has: its migrations and a lease kept in a table. The shared behaviour is in contract.test.ts. */
const stores: PostgresStore[] = []
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close()
})

function open(url: string, staleMs?: number): PostgresStore {
  const store = new PostgresStore(url, staleMs)
  stores.push(store)
  return store
}

async function setOwner(url: string, id: string, owner: object, expiresInS: number): Promise<void> {
  await onDatabase(url, (db) =>
    db.query(`UPDATE rein_leases SET token = gen_random_uuid(), owner = $2, expires_at = now() + make_interval(secs => $3) WHERE session_id = $1`, [
      id,
      owner,
      expiresInS,
    ]),
  )
}

describe.runIf(postgresUrl)('the PostgreSQL store', () => {
  it('applies every migration once even when many processes use a new database at the same moment', async () => {
    const url = await freshDatabase()
    await Promise.all(Array.from({ length: 5 }, () => open(url).ids()))
    const versions = await onDatabase(url, (db) => db.query('SELECT version FROM rein_schema ORDER BY version'))
    expect(versions.rows.map((row) => row.version)).toEqual(MIGRATIONS.map((_, i) => i + 1))
  })

  it('refuses a database written by a newer Rein in one sentence', async () => {
    const url = await freshDatabase()
    await open(url).ids()
    await onDatabase(url, (db) => db.query('INSERT INTO rein_schema (version) VALUES (99)'))
    await expect(open(url).ids()).rejects.toThrow(`has schema version 99, but this Rein knows versions up to ${MIGRATIONS.length}; upgrade Rein.`)
  })

  it('takes over the lease of a live holder on another machine only once it has expired', async () => {
    const url = await freshDatabase()
    const store = open(url, 60_000)
    const session = await Session.create(store, { cwd: '/repo' })
    await setOwner(url, session.id, { pid: 1, host: 'elsewhere', startedAt: 0 }, 60)
    await expect(Session.load(store, session.id)).rejects.toThrow(/is open for writing by process 1 on elsewhere/)
    await setOwner(url, session.id, { pid: 1, host: 'elsewhere', startedAt: 0 }, -1)
    const taken = await Session.load(store, session.id)
    expect(taken.length).toBe(0)
    await taken.close()
    await session.close().catch(() => {})
  })

  it('takes over at once a lease whose holder ran on this machine and has exited', async () => {
    const url = await freshDatabase()
    const store = open(url, 60_000)
    const session = await Session.create(store, { cwd: '/repo' })
    const child = spawn(process.execPath, ['-e', ''])
    const deadPid = await new Promise<number>((resolve) => child.on('exit', () => resolve(child.pid!)))
    await setOwner(url, session.id, { pid: deadPid, host: hostname(), startedAt: 0 }, 60)
    const taken = await Session.load(store, session.id)
    await taken.close()
    await session.close().catch(() => {})
  })

  it('keeps a held lease alive past its stale time by refreshing it', async () => {
    const url = await freshDatabase()
    const store = open(url, 400)
    const session = await Session.create(store, { cwd: '/repo' })
    await new Promise((r) => setTimeout(r, 1200))
    await expect(Session.load(open(url, 400), session.id)).rejects.toThrow(/is open for writing/)
    session.append('session/title', { title: 'still mine' })
    await session.close()
  })

  it('releases the lease when the writer closes, leaving no row behind', async () => {
    const url = await freshDatabase()
    const session = await Session.create(open(url), { cwd: '/repo' })
    await session.close()
    const rows = await onDatabase(url, (db) => db.query('SELECT count(*)::int AS n FROM rein_leases'))
    expect(rows.rows[0].n).toBe(0)
  })

  it('deletes a session whose lease a dead process on this machine left, with its records and lease row', async () => {
    const url = await freshDatabase()
    const store = open(url, 60_000)
    const session = await Session.create(store, { cwd: '/repo' })
    session.append('session/title', { title: 'left open' })
    await session.flush()
    const child = spawn(process.execPath, ['-e', ''])
    const deadPid = await new Promise<number>((resolve) => child.on('exit', () => resolve(child.pid!)))
    await setOwner(url, session.id, { pid: deadPid, host: hostname(), startedAt: 0 }, 60)
    await store.remove(session.id)
    const left = await onDatabase(url, (db) =>
      db.query('SELECT (SELECT count(*) FROM rein_events)::int AS events, (SELECT count(*) FROM rein_leases)::int AS leases, (SELECT count(*) FROM rein_sessions)::int AS sessions'),
    )
    expect(left.rows[0]).toEqual({ events: 0, leases: 0, sessions: 0 })
    await session.close().catch(() => {})
  })

  it('refuses to delete the session of a fleet task that is queued or running, and deletes it once the task ended, keeping the task row', async () => {
    const url = await freshDatabase()
    const store = open(url)
    const session = await Session.create(store, { cwd: '/repo' })
    await session.close()
    await onDatabase(url, (db) =>
      db.query(`INSERT INTO rein_batch_tasks (batch, task_id, session_id, job_id, task, status) VALUES ('nightly', 't1', $1, gen_random_uuid(), '{}', 'queued')`, [
        session.id,
      ]),
    )
    await expect(store.remove(session.id)).rejects.toThrow(
      `Session ${session.id} belongs to fleet task nightly/t1, which is queued; cancel the batch (rein batch cancel nightly) before deleting it.`,
    )
    expect((await store.ids()).map((stored) => stored.id)).toEqual([session.id])
    await onDatabase(url, (db) => db.query(`UPDATE rein_batch_tasks SET status = 'completed'`))
    await store.remove(session.id)
    expect(await store.ids()).toEqual([])
    const task = await onDatabase(url, (db) => db.query('SELECT session_id, status FROM rein_batch_tasks'))
    expect(task.rows).toEqual([{ session_id: session.id, status: 'completed' }])
  })
})

describe.runIf(postgresUrl)('a transaction whose connection the server ends between two of its queries', () => {
  it('rejects with the server\'s reason instead of crashing the process, and the pool serves the next caller', async () => {
    const url = await freshDatabase()
    const pool = new pg.Pool({ connectionString: url, max: 1 })
    pool.on('error', () => undefined)
    try {
      const held = inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
        // No query runs while the server ends the connection: node-postgres emits the error on the client itself.
        await onDatabase(url, (db) => db.query('SELECT pg_terminate_backend($1)', [rows[0].pid]))
        await new Promise((resolve) => setTimeout(resolve, 200))
        await client.query('SELECT 1')
      })
      await expect(held).rejects.toThrow(/terminating connection|not queryable|Connection terminated/i)
      await expect(inTransaction(pool, (client) => client.query('SELECT 2 AS n').then((r) => r.rows[0].n))).resolves.toBe(2)
    } finally {
      await pool.end()
    }
  })
})
