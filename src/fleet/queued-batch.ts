import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { isDeepStrictEqual } from 'node:util'
import { retryDb } from './db-retry.js'
import { PostgresStore } from '../store/postgres/store.js'
import { tokensOf } from './outcome.js'
import type { Progress } from './progress.js'
import { requeueFailed } from './batch-admin.js'
import { expirySeconds, FINAL_STATUSES, fleetPool, openQueue, QUEUE, JOB_RETRY, type TaskJob, type TaskRow } from './queue.js'
import { appendResult, readResults } from './results-file.js'
import type { BatchTask } from './task.js'

export interface QueuedBatch {
  tasks: BatchTask[]
  name: string
  url: string
  out: string
  detach: boolean
  retryFailed: boolean
  signal: AbortSignal
  progress: (total: number) => Progress
}

const FINAL = new Set<string>(FINAL_STATUSES)

/** How long `rein batch` waits for an unreachable database (restart, full connection table) before it gives up, ms. */
const BATCH_PATIENCE_MS = 120_000

/** The first task whose stored definition is not this run's (a batch name reused for other tasks), or undefined. */
function differentTasks(stored: readonly Pick<TaskRow, 'task_id' | 'task'>[], tasks: readonly BatchTask[]): string | undefined {
  const mine = new Map(tasks.map(({ line: _line, ...task }) => [task.id, task]))
  for (const row of stored) {
    const { line: _line, ...task } = row.task
    const now = mine.get(row.task_id)
    if (!now) return `task ${row.task_id} is not in this file`
    if (!isDeepStrictEqual(task, now)) return `task ${row.task_id} differs`
  }
  return undefined
}

/**
 * Queues a batch for `rein worker` processes and, unless detached, follows it: progress on stderr and one line per
 * finished task appended to `out`, until every task of the batch is final. Re-running queues only what is missing
 * (tasks not yet final; with `retryFailed`, failed ones again under a new job, resuming the same session).
 */
export async function runQueuedBatch(batch: QueuedBatch): Promise<number> {
  const store = new PostgresStore(batch.url, undefined, { maxConnections: 1 })
  const pool = fleetPool(batch.url, 1)
  /** Database calls wait out a restart or a full connection table for a while, then fail in one sentence. */
  const retry = <T>(call: () => Promise<T>): Promise<T> => retryDb(call, { signal: batch.signal, withinMs: BATCH_PATIENCE_MS })
  try {
    await retry(() => store.migrated())
    const stored = await retry(() => pool.query<Pick<TaskRow, 'task_id' | 'task'>>('SELECT task_id, task FROM rein_batch_tasks WHERE batch = $1', [batch.name]))
    const differs = differentTasks(stored.rows, batch.tasks)
    if (differs) {
      process.stderr.write(`rein: the batch ${batch.name} in this store holds other tasks (${differs}); give this run another --name, or leave --name out to name the batch by its tasks.\n`)
      return 2
    }
    for (const task of batch.tasks) {
      await retry(() =>
        pool.query(
          `INSERT INTO rein_batch_tasks (batch, task_id, session_id, job_id, task) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (batch, task_id) DO NOTHING`,
          [batch.name, task.id, randomUUID(), randomUUID(), task],
        ),
      )
    }
    const boss = await openQueue(batch.url, { connections: 1, signal: batch.signal, withinMs: BATCH_PATIENCE_MS })
    let waiting
    try {
      if (batch.retryFailed) await requeueFailed(pool, boss, batch.name)
      waiting = await retry(() =>
        pool.query<Pick<TaskRow, 'task_id' | 'job_id' | 'task'>>(`SELECT task_id, job_id, task FROM rein_batch_tasks WHERE batch = $1 AND status = 'queued'`, [
          batch.name,
        ]),
      )
      // A job that exists already (queued before, or just requeued) is left as it is: pg-boss ignores a known id.
      for (const row of waiting.rows) {
        const job: TaskJob = { batch: batch.name, taskId: row.task_id }
        await retry(() => boss.send(QUEUE, job, { id: row.job_id, ...JOB_RETRY, expireInSeconds: expirySeconds(row.task) }))
      }
    } finally {
      await boss.stop({ graceful: false, wait: true })
    }
    process.stderr.write(`rein: batch ${batch.name}: ${waiting.rows.length} of ${batch.tasks.length} tasks queued for rein worker.\n`)
    if (batch.detach) {
      process.stderr.write(`rein: follow it with \`rein batch status --name ${batch.name}\`.\n`)
      return 0
    }
    return await follow(batch, pool, retry)
  } finally {
    await pool.end()
    await store.close()
  }
}

/** Polls the batch's rows until all are final, writing each newly final result to `out`. */
async function follow(batch: QueuedBatch, pool: ReturnType<typeof fleetPool>, retry: <T>(call: () => Promise<T>) => Promise<T>): Promise<number> {
  const written = readResults(batch.out)
  const progress = batch.progress(batch.tasks.length)
  for (;;) {
    const rows = (
      await retry(() =>
        pool.query<Pick<TaskRow, 'task_id' | 'status' | 'result'>>('SELECT task_id, status, result FROM rein_batch_tasks WHERE batch = $1', [batch.name]),
      )
    ).rows
    const counts = { done: 0, failed: 0, running: 0, tokens: 0, cost: 0, finished: 0 }
    for (const row of rows) {
      if (row.status === 'running') counts.running++
      if (!FINAL.has(row.status) || !row.result) continue
      counts.finished++
      if (row.status === 'completed') counts.done++
      else counts.failed++
      counts.tokens += tokensOf(row.result)
      counts.cost += row.result.cost_usd
      const before = written.get(row.task_id)
      if (!before || JSON.stringify(before) !== JSON.stringify(row.result)) {
        appendResult(batch.out, row.result)
        written.set(row.task_id, row.result)
      }
    }
    progress.set(counts)
    if (counts.finished === rows.length) {
      progress.end()
      process.stderr.write(`rein: batch ${batch.name} finished: ${counts.done} completed, ${counts.failed} failed; results in ${batch.out}.\n`)
      return counts.failed ? 1 : 0
    }
    if (batch.signal.aborted) {
      progress.end()
      process.stderr.write(`rein: stopped following batch ${batch.name}; the workers go on. Run the same command again to follow it.\n`)
      return 130
    }
    await sleep(500, undefined, { signal: batch.signal }).catch(() => {
      // Interrupted while waiting: the next pass reports and returns.
    })
  }
}

/** `rein batch status`: one block per batch, counts by status, then the tasks not yet final and who runs them. */
export async function queueStatus(url: string, name?: string): Promise<string> {
  const store = new PostgresStore(url)
  const pool = fleetPool(url)
  try {
    await store.migrated()
    const rows = (
      await pool.query<Pick<TaskRow, 'batch' | 'task_id' | 'status' | 'attempts' | 'worker'> & { seen_at: Date | null }>(
        `SELECT t.batch, t.task_id, t.status, t.attempts, t.worker, w.seen_at
         FROM rein_batch_tasks t LEFT JOIN rein_workers w ON w.id = t.worker
         WHERE $1::text IS NULL OR t.batch = $1 ORDER BY t.batch, t.created_at, t.task_id`,
        [name ?? null],
      )
    ).rows
    if (!rows.length) return name ? `No batch named ${name} in this store.\n` : 'No batches in this store yet.\n'
    const workers = (await pool.query<{ id: string; concurrency: number; seen_at: Date }>('SELECT id, concurrency, seen_at FROM rein_workers ORDER BY id')).rows
    let text = ''
    for (const batchName of [...new Set(rows.map((row) => row.batch))]) {
      const mine = rows.filter((row) => row.batch === batchName)
      const count = (status: string): number => mine.filter((row) => row.status === status).length
      const retried = mine.filter((row) => row.attempts > 1).length
      text += `batch ${batchName}: ${mine.length} tasks · queued ${count('queued')} · running ${count('running')} · completed ${count('completed')} · failed ${count('failed') + count('timeout') + count('cancelled')} · retried ${retried}\n`
      for (const row of mine.filter((r) => r.status === 'running')) text += `  running ${row.task_id} on ${row.worker} (attempt ${row.attempts})\n`
    }
    const now = Date.now()
    const live = workers.filter((w) => now - w.seen_at.getTime() < 60_000)
    text += `workers: ${live.length} live${live.length ? ` (${live.map((w) => `${w.id} ×${w.concurrency}`).join(', ')})` : ''}\n`
    return text
  } finally {
    await pool.end()
    await store.close()
  }
}
