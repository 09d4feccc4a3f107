import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { postgresBin, startPostgres } from '../../bench/pg-server.mjs'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { killWorkers, startWorker, until } from './workers.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

/**
 * Faults of the database under a running fleet. This file starts its own PostgreSQL server (small connection table),
 * since it restarts it and fills its connections, which the suite's shared server must not suffer.
 */
let server: { url: string; restart: () => void; stop: () => void } | undefined
let mock: MockModel | undefined

beforeAll(async () => {
  if (postgresBin()) server = await startPostgres({ maxConnections: 40 })
})
afterAll(() => server?.stop())
afterEach(async () => {
  await killWorkers()
  await mock?.close()
  mock = undefined
})

let databases = 0
async function freshDatabase(): Promise<string> {
  const name = `faults_${process.pid}_${databases++}`
  const admin = new pg.Client({ connectionString: server!.url })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(server!.url)
  url.pathname = `/${name}`
  return url.toString()
}



function tasks(root: string, stem: string, count: number): string {
  const file = join(root, `${stem}.jsonl`)
  writeFileSync(file, Array.from({ length: count }, (_, i) => JSON.stringify({ id: `t${i}`, cwd: 'project', prompt: `task ${i}` })).join('\n'))
  return file
}

function results(path: string): { id: string; status: string; session_id: string; attempts: number; error?: string }[] {
  return readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
}

/** How many turns of each session ended `completed`, from the store. */
async function completedTurns(url: string): Promise<number[]> {
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  try {
    const rows = await db.query<{ n: number }>(
      `SELECT count(*) FILTER (WHERE record::jsonb->>'type' = 'turn/end' AND record::jsonb->'data'->>'reason' = 'completed')::int AS n
       FROM rein_events GROUP BY session_id`,
    )
    return rows.rows.map((row) => row.n)
  } finally {
    await db.end()
  }
}

describe.runIf(postgresBin())('a fleet whose database fails under it', () => {
  it('three workers and a batch starting at once on a new database set up the queue without a deadlock and finish the batch', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({ script: [{ match: /task/, text: 'done', repeat: true }] })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url } })
    const file = tasks(box.root, 'together', 3)
    const started = [0, 1, 2].map(() => startWorker(['--concurrency', '1'], box.root, env))
    const out = join(box.root, 'out.jsonl')
    const followed = await runCli(['batch', file, '--out', out], { cwd: box.root, env, timeoutMs: 90_000 })
    expect(followed.code).toBe(0)
    expect(results(out).map((r) => r.status)).toEqual(['completed', 'completed', 'completed'])
    for (const worker of started) {
      expect(worker.child.exitCode).toBeNull()
      expect(worker.log()).not.toMatch(/deadlock/)
    }
  })

  it('workers stay up through pg_terminate_backend and a database restart mid-batch, and every task completes exactly once', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({ script: [{ match: /task|interrupted/, delayMs: 1500, text: 'done', repeat: true }] })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url } })
    const file = tasks(box.root, 'faults', 4)
    await runCli(['batch', file, '--detach'], { cwd: box.root, env })
    const fleet = [startWorker(['--concurrency', '2'], box.root, env), startWorker(['--concurrency', '2'], box.root, env)]
    const out = join(box.root, 'out.jsonl')
    const following = runCli(['batch', file, '--out', out], { cwd: box.root, env, timeoutMs: 120_000 })

    await until('a task asked the model', () => mock!.requests.length >= 1)
    const admin = new pg.Client({ connectionString: server!.url })
    await admin.connect()
    const terminated = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [
      new URL(url).pathname.slice(1),
    ])
    await admin.end()
    expect(terminated.rowCount).toBeGreaterThan(0)
    await until('another task asked the model', () => mock!.requests.length >= 2)
    server!.restart()

    const followed = await following
    // The follower's last words name a task that did not complete: part of the failure message.
    const failures = followed.code === 0 ? [] : results(out).filter((r) => r.status !== 'completed').map((r) => r.error)
    expect({ code: followed.code, failures }).toEqual({ code: 0, failures: [] })
    expect(results(out).map((r) => r.status)).toEqual(['completed', 'completed', 'completed', 'completed'])
    for (const worker of fleet) expect(worker.child.exitCode).toBeNull()
    expect(await completedTurns(url)).toEqual([1, 1, 1, 1])
  })

  it('a full connection table is waited out: the tasks complete once connections are free, none fails', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({ script: [{ match: /task|interrupted/, text: 'done', repeat: true }] })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url } })
    const file = tasks(box.root, 'crowded', 2)
    const worker = startWorker(['--concurrency', '2'], box.root, env)
    await until('the worker is taking tasks', () => worker.log().includes('is taking tasks'))
    const hogs: pg.Client[] = []
    for (;;) {
      const hog = new pg.Client({ connectionString: server!.url })
      hog.on('error', () => {})
      try {
        await hog.connect()
        hogs.push(hog)
      } catch {
        break
      }
    }
    const out = join(box.root, 'out.jsonl')
    // Queued from outside the full table: the batch's own set-up waits for a connection too.
    const following = runCli(['batch', file, '--out', out], { cwd: box.root, env, timeoutMs: 120_000 })
    await new Promise((resolve) => setTimeout(resolve, 1500))
    await hogs.pop()!.end()
    // Usually a task process meets the full table here; when the batch took the freed slot first, its own set-up has
    // already waited the table out. Either way the rest is released after at most 10 s, and every task must complete.
    await until('a task process met the full table', () => /stopped before its turn ended \(.*too many connections/.test(worker.log()), 10_000).catch(() => undefined)
    for (const hog of hogs) await hog.end()
    const followed = await following
    expect(followed.code).toBe(0)
    expect(results(out).map((r) => [r.id, r.status])).toEqual(expect.arrayContaining([['t0', 'completed'], ['t1', 'completed']]))
    expect(worker.child.exitCode).toBeNull()
  })
})
