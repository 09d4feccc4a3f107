import { randomUUID } from 'node:crypto'
import type PgBoss from 'pg-boss'
import { PostgresStore } from '../store/postgres/store.js'
import { retryDb } from './db-retry.js'
import { usageFields, type TaskResult } from './outcome.js'
import { expirySeconds, fleetPool, openQueue, QUEUE, JOB_RETRY, type TaskJob, type TaskRow } from './queue.js'

/**
 * The queue's administration (`rein batch cancel | results | retry | prune`), each one command against the store.
 * Every database call waits out a brief outage (two minutes), then fails in one sentence.
 */
const PATIENCE_MS = 120_000

type Pool = ReturnType<typeof fleetPool>

async function withQueue<T>(url: string, body: (pool: Pool, boss: () => Promise<PgBoss>) => Promise<T>): Promise<T> {
  const store = new PostgresStore(url, undefined, { maxConnections: 1 })
  const pool = fleetPool(url, 1)
  let boss: PgBoss | undefined
  try {
    await retryDb(() => store.migrated(), { withinMs: PATIENCE_MS })
    return await body(pool, async () => (boss ??= await openQueue(url, { connections: 1, withinMs: PATIENCE_MS })))
  } finally {
    await boss?.stop({ graceful: false, wait: true }).catch(() => {})
    await pool.end()
    await store.close()
  }
}

const retry = <T>(call: () => Promise<T>): Promise<T> => retryDb(call, { withinMs: PATIENCE_MS })

async function batchExists(pool: Pool, name: string): Promise<boolean> {
  return (await retry(() => pool.query('SELECT 1 FROM rein_batch_tasks WHERE batch = $1 LIMIT 1', [name]))).rowCount === 1
}

const noBatch = (name: string): string => `No batch named ${name} in this store; \`rein batch status\` lists them.`

/**
 * Cancels every task of the batch that is not final: queued ones never start, running ones are stopped by their
 * worker within a few seconds (it checks its task's row while it runs). Their results say `cancelled`.
 */
export async function cancelBatch(url: string, name: string): Promise<{ text: string; code: number }> {
  return withQueue(url, async (pool, queue) => {
    if (!(await batchExists(pool, name))) return { text: noBatch(name), code: 1 }
    const result = (row: Pick<TaskRow, 'task_id' | 'session_id' | 'attempts'>): TaskResult => ({
      id: row.task_id,
      status: 'cancelled',
      session_id: row.session_id,
      result: '',
      usage: usageFields({ inputUncached: 0, inputCacheRead: 0, output: 0, reasoning: 0 }),
      cost_usd: 0,
      duration_ms: 0,
      attempts: row.attempts,
      error: 'the batch was cancelled (rein batch cancel) before the task finished.',
    })
    const open = await retry(() =>
      pool.query<Pick<TaskRow, 'task_id' | 'session_id' | 'attempts' | 'job_id'>>(
        `SELECT task_id, session_id, attempts, job_id FROM rein_batch_tasks WHERE batch = $1 AND status IN ('queued', 'running')`,
        [name],
      ),
    )
    for (const row of open.rows) {
      await retry(() =>
        pool.query(`UPDATE rein_batch_tasks SET status = 'cancelled', result = $2, worker = NULL, updated_at = now() WHERE job_id = $1 AND status IN ('queued', 'running')`, [
          row.job_id,
          result(row),
        ]),
      )
    }
    if (open.rows.length) {
      const boss = await queue()
      await retry(() => boss.cancel(QUEUE, open.rows.map((row) => row.job_id)))
    }
    return { text: `Batch ${name}: ${open.rows.length} unfinished tasks cancelled; finished ones keep their results.`, code: 0 }
  })
}

/** The batch's final results as JSONL, in the order the tasks were queued; what is not final yet is counted on stderr. */
export async function batchResults(url: string, name: string): Promise<{ lines: string; pending: number; found: boolean }> {
  return withQueue(url, async (pool) => {
    const rows = (
      await retry(() =>
        pool.query<Pick<TaskRow, 'status' | 'result'>>('SELECT status, result FROM rein_batch_tasks WHERE batch = $1 ORDER BY created_at, task_id', [name]),
      )
    ).rows
    const final = rows.filter((row) => row.result && row.status !== 'queued' && row.status !== 'running')
    return { lines: final.map((row) => `${JSON.stringify(row.result)}\n`).join(''), pending: rows.length - final.length, found: rows.length > 0 }
  })
}

/** Queues again, under new jobs, the batch's tasks that failed, timed out or were cancelled; each resumes its session. */
export async function retryFailed(url: string, name: string): Promise<{ text: string; code: number }> {
  return withQueue(url, async (pool, queue) => {
    if (!(await batchExists(pool, name))) return { text: noBatch(name), code: 1 }
    const count = await requeueFailed(pool, await queue(), name)
    return { text: `Batch ${name}: ${count} tasks queued again.`, code: 0 }
  })
}

/** Sets the batch's failed, timed-out and cancelled rows back to `queued` under new job ids and sends their jobs. */
export async function requeueFailed(pool: Pool, boss: PgBoss, name: string): Promise<number> {
  const failed = (
    await retry(() =>
      pool.query<Pick<TaskRow, 'task_id' | 'task'>>(`SELECT task_id, task FROM rein_batch_tasks WHERE batch = $1 AND status IN ('failed', 'timeout', 'cancelled')`, [name]),
    )
  ).rows
  let moved = 0
  for (const row of failed) {
    const jobId = randomUUID()
    const requeued = await retry(() =>
      pool.query(`UPDATE rein_batch_tasks SET status = 'queued', job_id = $3, updated_at = now() WHERE batch = $1 AND task_id = $2 AND status IN ('failed', 'timeout', 'cancelled')`, [
        name,
        row.task_id,
        jobId,
      ]),
    )
    if (requeued.rowCount !== 1) continue
    moved++
    const job: TaskJob = { batch: name, taskId: row.task_id }
    await retry(() => boss.send(QUEUE, job, { id: jobId, ...JOB_RETRY, expireInSeconds: expirySeconds(row.task) }))
  }
  return moved
}

/**
 * Deletes the rows of batches whose every task is final and none changed within `olderThanDays`. Sessions stay (they
 * are the store's, pruned with `rein sessions`); pg-boss keeps and deletes its own jobs by its retention.
 */
export async function pruneBatches(url: string, olderThanDays: number): Promise<string> {
  return withQueue(url, async (pool) => {
    const pruned = await retry(() =>
      pool.query<{ batch: string; tasks: number }>(
        `WITH old AS (
           SELECT batch FROM rein_batch_tasks GROUP BY batch
           HAVING bool_and(status IN ('completed', 'failed', 'timeout', 'cancelled')) AND max(updated_at) < now() - make_interval(days => $1)
         )
         DELETE FROM rein_batch_tasks t USING old WHERE t.batch = old.batch RETURNING t.batch`,
        [olderThanDays],
      ),
    )
    const batches = new Set(pruned.rows.map((row) => row.batch))
    return `Pruned ${batches.size} batches (${pruned.rowCount ?? 0} tasks) finished more than ${olderThanDays} days ago; their sessions stay in the store.`
  })
}
