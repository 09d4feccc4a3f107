import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type PgBoss from 'pg-boss'
import { readSessionLog } from '../session/load.js'
import { SessionError } from '../store/errors.js'
import { PostgresStore } from '../store/postgres/store.js'
import { outcomeOf, usageFields, type TaskResult } from './outcome.js'
import { fleetPool, openQueue, QUEUE, workerName, type TaskJob, type TaskRow } from './queue.js'
import { runTask } from './run-task.js'

export interface WorkerOptions {
  url: string
  concurrency: number
  /** Workspaces live at `<workdir>/<batch>/<task id>`. */
  workdir: string
  home: string
  env: NodeJS.ProcessEnv
  /** Aborting stops the worker: no new jobs; running tasks are stopped and handed back to the queue. */
  signal: AbortSignal
  /** A worker silent this long is taken for dead and its tasks are retried elsewhere. */
  staleMs: number
  /** How often pg-boss's maintenance (job expiry) runs, seconds. */
  maintenanceSeconds: number
  /** One line per event a person running the worker wants to see. */
  log: (line: string) => void
}

/**
 * One worker: takes task jobs from the queue, `concurrency` at a time, and runs each in its own workspace.
 *
 * What holds:
 * - A task whose session already ended its last turn `completed` is never run again: the job is finished from the
 *   log. So a task is completed at most once, however often its job is delivered.
 * - Before a task runs, its session's writer lease must be free: a previous attempt that is still running (a worker
 *   cut off but alive) finishes first, one that died is taken over (see the store's lease).
 * - A stopped task (this worker interrupted) goes back to the queue for another attempt, which resumes its session.
 * - While alive, the worker heartbeats in `rein_workers`; it reaps the running tasks of workers that stopped
 *   heartbeating, failing their jobs so pg-boss retries them.
 */
export async function runWorker(options: WorkerOptions): Promise<void> {
  const me = workerName()
  const store = new PostgresStore(options.url)
  await store.migrated()
  const pool = fleetPool(options.url)
  const heartbeat = (): Promise<unknown> =>
    pool.query(
      `INSERT INTO rein_workers (id, host, pid, concurrency) VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET seen_at = now(), concurrency = EXCLUDED.concurrency`,
      [me, me.slice(0, me.lastIndexOf(':')), process.pid, options.concurrency],
    )
  await heartbeat()
  const boss = await openQueue(options.url, { supervise: true, maintenanceSeconds: options.maintenanceSeconds })
  // A failed heartbeat or reap (the database briefly out of reach) is tried again on the next tick; a worker that
  // stays cut off for the stale time is reaped by the others, which is the point.
  const beat = setInterval(() => void heartbeat().catch(() => {}), Math.max(200, options.staleMs / 4))
  const reap = setInterval(
    () => void reapDead(pool, boss, me, options).catch((error: unknown) => options.log(`reaping dead workers failed: ${String(error)}`)),
    Math.max(500, options.staleMs / 2),
  )

  /** Runs one job; any failure hands the task back to the queue with the reason, so its row never stays `running`. */
  const handle = async (jobs: PgBoss.JobWithMetadata<TaskJob>[]): Promise<TaskResult | undefined> => {
    let claimed: TaskRow | undefined
    try {
      return await attempt(jobs[0], (row) => (claimed = row))
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error)
      options.log(`task ${jobs[0].data.batch}/${jobs[0].data.taskId}: ${why}`)
      if (claimed) await handBack(pool, boss, claimed, why)
      else throw error
      return undefined
    }
  }

  const attempt = async (job: PgBoss.JobWithMetadata<TaskJob>, claim: (row: TaskRow) => void): Promise<TaskResult | undefined> => {
    const claimed = await pool.query<TaskRow>(
      `UPDATE rein_batch_tasks SET status = 'running', attempts = attempts + 1, worker = $2, updated_at = now()
       WHERE job_id = $1 AND status NOT IN ('completed', 'failed', 'timeout') RETURNING *`,
      [job.id, me],
    )
    const row = claimed.rows[0]
    if (!row) return undefined
    claim(row)
    const done = await finishedOutcome(store, row)
    if (done) {
      options.log(`task ${row.batch}/${row.task_id}: already completed in its session; not run again.`)
      await finish(pool, row, done)
      return done
    }
    await leaseFree(store, row.session_id, options.signal)
    if (!options.signal.aborted) options.log(`task ${row.batch}/${row.task_id}: attempt ${row.attempts} started.`)
    const end = options.signal.aborted
      ? ({ kind: 'interrupted' } as const)
      : await runTask({
          task: row.task,
          sessionId: row.session_id,
          workspaces: join(options.workdir, row.batch),
          store,
          storeUrl: options.url,
          home: options.home,
          env: options.env,
          attempt: row.attempts,
          signal: options.signal,
        })
    if (end.kind === 'interrupted' || /is open for writing/.test(end.result.error ?? '')) {
      options.log(`task ${row.batch}/${row.task_id}: stopped; handed back to the queue.`)
      await handBack(pool, boss, row, `worker ${me} stopped the task`)
      return undefined
    }
    await finish(pool, row, end.result)
    options.log(`task ${row.batch}/${row.task_id}: ${end.result.status}.`)
    return end.result
  }

  const workers = await Promise.all(
    Array.from({ length: options.concurrency }, () =>
      boss.work<TaskJob>(QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5, includeMetadata: true }, handle),
    ),
  )
  options.log(`worker ${me} is taking tasks (${options.concurrency} at a time).`)
  await new Promise<void>((resolve) => {
    if (options.signal.aborted) resolve()
    options.signal.addEventListener('abort', () => resolve(), { once: true })
  })
  for (const id of workers) {
    await boss.offWork({ id }).catch(() => {
      // Already stopped: stop() below ends whatever is left.
    })
  }
  await boss.stop({ graceful: true, wait: true, timeout: 30_000 })
  clearInterval(beat)
  clearInterval(reap)
  await pool.query('DELETE FROM rein_workers WHERE id = $1', [me]).catch(() => {
    // Unreachable database: the row goes stale and the others treat this worker as gone, which it is.
  })
  await pool.end()
  await store.close()
}

/** The task's result straight from its session when the session's last turn already completed. */
async function finishedOutcome(store: PostgresStore, row: TaskRow): Promise<TaskResult | undefined> {
  let outcome
  try {
    outcome = outcomeOf((await readSessionLog(store, row.session_id)).events)
  } catch (error) {
    if (error instanceof SessionError && error.code === 'not-found') return undefined
    throw error
  }
  if (outcome.reason !== 'completed') return undefined
  return {
    id: row.task_id,
    status: 'completed',
    session_id: row.session_id,
    result: outcome.text,
    usage: usageFields(outcome.usage),
    cost_usd: Number(outcome.cost.toFixed(6)),
    duration_ms: 0,
    attempts: row.attempts,
  }
}

/** Waits until no process holds the session's lease (or the worker stops). A session not created yet is free. */
async function leaseFree(store: PostgresStore, sessionId: string, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      await (await store.lease(sessionId)).release()
      return
    } catch (error) {
      if (error instanceof SessionError && error.code === 'not-found') return
      if (!(error instanceof SessionError && error.code === 'busy')) throw error
    }
    await sleep(1000)
  }
}

/** Writes the final status, only if this attempt still owns the row. */
async function finish(pool: ReturnType<typeof fleetPool>, row: TaskRow, result: TaskResult): Promise<void> {
  await pool.query(
    `UPDATE rein_batch_tasks SET status = $3, result = $4, worker = NULL, updated_at = now() WHERE job_id = $1 AND attempts = $2`,
    [row.job_id, row.attempts, result.status, { ...result, attempts: row.attempts }],
  )
}

/**
 * Returns a task to the queue: its row to `queued`, its job failed in pg-boss (which retries it). When pg-boss has
 * no retries left the task is final: failed, saying how often it was tried.
 */
async function handBack(pool: ReturnType<typeof fleetPool>, boss: PgBoss, row: Pick<TaskRow, 'job_id' | 'attempts' | 'task_id' | 'session_id'>, why: string): Promise<void> {
  const released = await pool.query(
    `UPDATE rein_batch_tasks SET status = 'queued', worker = NULL, updated_at = now() WHERE job_id = $1 AND attempts = $2 AND status = 'running'`,
    [row.job_id, row.attempts],
  )
  if (released.rowCount !== 1) return
  await boss.fail(QUEUE, row.job_id, { message: why })
  await giveUpIfExhausted(pool, boss, row, why)
}

/** When pg-boss has no retries left for the job, the task is final: failed, saying how often it was tried. */
async function giveUpIfExhausted(
  pool: ReturnType<typeof fleetPool>,
  boss: PgBoss,
  row: Pick<TaskRow, 'job_id' | 'attempts' | 'task_id' | 'session_id'>,
  why: string,
): Promise<void> {
  const job = await boss.getJobById(QUEUE, row.job_id)
  if (job?.state === 'failed') {
    const result: TaskResult = {
      id: row.task_id,
      status: 'failed',
      session_id: row.session_id,
      result: '',
      usage: usageFields({ inputUncached: 0, inputCacheRead: 0, output: 0, reasoning: 0 }),
      cost_usd: 0,
      duration_ms: 0,
      attempts: row.attempts,
      error: `the task was stopped ${row.attempts} times (last: ${why}) and is not retried again; run the batch with --retry-failed to try once more.`,
    }
    await pool.query(`UPDATE rein_batch_tasks SET status = 'failed', result = $2 WHERE job_id = $1 AND status = 'queued'`, [row.job_id, result])
  }
}

/**
 * Hands back the tasks of workers that stopped heartbeating: those they claimed (`running`), and those whose job
 * they fetched from pg-boss but died before claiming (the job is active while the row is still `queued`).
 */
async function reapDead(pool: ReturnType<typeof fleetPool>, boss: PgBoss, me: string, options: WorkerOptions): Promise<void> {
  const dead = await pool.query<Pick<TaskRow, 'job_id' | 'attempts' | 'task_id' | 'session_id' | 'worker' | 'batch'>>(
    `SELECT t.job_id, t.attempts, t.task_id, t.session_id, t.worker, t.batch FROM rein_batch_tasks t
     LEFT JOIN rein_workers w ON w.id = t.worker
     WHERE t.status = 'running' AND t.worker <> $1 AND (w.id IS NULL OR w.seen_at < now() - make_interval(secs => $2))`,
    [me, options.staleMs / 1000],
  )
  for (const row of dead.rows) {
    options.log(`task ${row.batch}/${row.task_id}: worker ${row.worker} stopped answering; retrying the task.`)
    await handBack(pool, boss, row, `worker ${row.worker} stopped answering`)
  }
  // pg-boss's job table (schema pgboss, v10): a job is active from the moment a worker fetched it.
  const unclaimed = await pool.query<Pick<TaskRow, 'job_id' | 'task_id' | 'batch' | 'session_id' | 'attempts'>>(
    `SELECT t.job_id, t.task_id, t.batch, t.session_id, t.attempts FROM rein_batch_tasks t
     JOIN pgboss.job j ON j.name = $1 AND j.id = t.job_id
     WHERE t.status = 'queued' AND j.state = 'active' AND j.started_on < now() - make_interval(secs => $2)`,
    [QUEUE, options.staleMs / 1000],
  )
  for (const row of unclaimed.rows) {
    options.log(`task ${row.batch}/${row.task_id}: its worker died before starting it; retrying the task.`)
    await boss.fail(QUEUE, row.job_id, { message: 'the worker that fetched the task died before starting it' })
    await giveUpIfExhausted(pool, boss, row, 'its worker died before starting it')
  }
}
