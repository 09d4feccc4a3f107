import type PgBoss from 'pg-boss'
import type pg from 'pg'
import { usageFields, type TaskResult } from './outcome.js'
import { QUEUE, type TaskRow } from './queue.js'

/** Runs one database call with the worker's retry policy (see db-retry.ts): transient errors are waited out. */
export type Retry = <T>(what: string, call: () => Promise<T>) => Promise<T>

export type RowKey = Pick<TaskRow, 'job_id' | 'attempts' | 'task_id' | 'session_id'>

/** Writes the final status, only if this attempt still owns the running row (not cancelled); then completes the job. */
export async function finishRow(pool: pg.Pool, boss: PgBoss, retry: Retry, row: RowKey, result: TaskResult): Promise<void> {
  await retry('recording a result', () =>
    pool.query(
      `UPDATE rein_batch_tasks SET status = $3, result = $4, worker = NULL, updated_at = now() WHERE job_id = $1 AND attempts = $2 AND status = 'running'`,
      [row.job_id, row.attempts, result.status, { ...result, attempts: row.attempts }],
    ),
  )
  await retry('completing a job', () => boss.complete(QUEUE, row.job_id, { status: result.status }))
}

/**
 * Returns a task to the queue: its row to `queued`, its job failed in pg-boss (which retries it). When pg-boss has
 * no retries left the task is final: failed, saying how often it was tried and why.
 */
export async function handBack(pool: pg.Pool, boss: PgBoss, retry: Retry, row: RowKey, why: string): Promise<void> {
  const released = await retry('handing a task back', () =>
    pool.query(
      `UPDATE rein_batch_tasks SET status = 'queued', worker = NULL, updated_at = now() WHERE job_id = $1 AND attempts = $2 AND status = 'running'`,
      [row.job_id, row.attempts],
    ),
  )
  if (released.rowCount !== 1) return
  await retry('failing a job', () => boss.fail(QUEUE, row.job_id, { message: why }))
  await giveUpIfExhausted(pool, boss, retry, row, why)
}

/** When pg-boss has no retries left for the job (its public job state is `failed`), the task is final: failed. */
export async function giveUpIfExhausted(pool: pg.Pool, boss: PgBoss, retry: Retry, row: RowKey, why: string): Promise<void> {
  const job = await retry('reading a job', () => boss.getJobById(QUEUE, row.job_id))
  if (job?.state !== 'failed') return
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
  await retry('recording a result', () =>
    pool.query(`UPDATE rein_batch_tasks SET status = 'failed', result = $2 WHERE job_id = $1 AND status = 'queued'`, [row.job_id, result]),
  )
}

/** At most this many queued rows are checked against pg-boss per reaping pass, so a long queue costs little. */
const UNCLAIMED_PER_PASS = 50

/**
 * Hands back the tasks of workers that stopped heartbeating, and running tasks whose own heartbeat (their row,
 * touched by the worker while the task runs) went silent: those claimed (`running`), and those whose job
 * they fetched from pg-boss but died before claiming (pg-boss's public job state is `active` while the row is still
 * `queued`, for longer than the stale time).
 */
export async function reapDead(
  pool: pg.Pool,
  boss: PgBoss,
  retry: Retry,
  me: string,
  staleMs: number,
  log: (line: string) => void,
): Promise<void> {
  const dead = await retry('reading running tasks', () =>
    pool.query<RowKey & Pick<TaskRow, 'worker' | 'batch'>>(
      `SELECT t.job_id, t.attempts, t.task_id, t.session_id, t.worker, t.batch FROM rein_batch_tasks t
       LEFT JOIN rein_workers w ON w.id = t.worker
       WHERE t.status = 'running' AND t.worker <> $1
         AND (w.id IS NULL OR w.seen_at < now() - make_interval(secs => $2) OR t.updated_at < now() - make_interval(secs => $2))`,
      [me, staleMs / 1000],
    ),
  )
  for (const row of dead.rows) {
    log(`task ${row.batch}/${row.task_id}: worker ${row.worker} stopped answering; retrying the task.`)
    await handBack(pool, boss, retry, row, `worker ${row.worker} stopped answering`)
  }
  const waiting = await retry('reading queued tasks', () =>
    pool.query<RowKey & Pick<TaskRow, 'batch'>>(
      `SELECT job_id, task_id, batch, session_id, attempts FROM rein_batch_tasks
       WHERE status = 'queued' AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT $2`,
      [staleMs / 1000, UNCLAIMED_PER_PASS],
    ),
  )
  for (const row of waiting.rows) {
    const job = await retry('reading a job', () => boss.getJobById(QUEUE, row.job_id))
    if (job?.state !== 'active' || !job.startedOn || Date.now() - new Date(job.startedOn).getTime() < staleMs) continue
    log(`task ${row.batch}/${row.task_id}: its worker died before starting it; retrying the task.`)
    await retry('failing a job', () => boss.fail(QUEUE, row.job_id, { message: 'the worker that fetched the task died before starting it' }))
    await giveUpIfExhausted(pool, boss, retry, row, 'its worker died before starting it')
  }
}
