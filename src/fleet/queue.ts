import { hostname } from 'node:os'
import PgBoss from 'pg-boss'
import pg from 'pg'
import { connectionError, safeUrl } from '../store/postgres/connection.js'
import { retryDb } from './db-retry.js'
import type { BatchTask } from './task.js'
import type { TaskResult } from './outcome.js'

/**
 * The fleet's queue: pg-boss (a PostgreSQL job queue) carries the work; `rein_batch_tasks` (store migration 2)
 * records each task of each batch, its session and its result.
 *
 * What holds:
 * - A task is queued once per batch: its row is inserted once, and its job is (re)sent with the row's job id, which
 *   pg-boss ignores when that job exists. A task's session id never changes, so every attempt resumes one log.
 * - A row's status is `queued` (waiting or to be retried), `running` (a worker holds the job), or final:
 *   `completed`, `failed`, `timeout`. Only the worker holding attempt `attempts` may write the final status.
 * - A worker that stops heartbeating in `rein_workers` for the stale time loses its running tasks: another worker's
 *   reaper fails their jobs in pg-boss, which retries them (pg-boss's own expiry is the backstop).
 */
export const QUEUE = 'rein-tasks'

/** Attempts after the first that pg-boss makes for a task whose worker died or was stopped. */
export const RETRY_LIMIT = 3

/** Where pg-boss moves a task's job once its retries ran out (inspect it with pg-boss's API; Rein never reads it). */
export const DEAD_QUEUE = `${QUEUE}-dead`

/**
 * pg-boss's retry policy for every task job: up to RETRY_LIMIT retries, 1 s doubling with pg-boss's jitter (so a task
 * handed back for a worker that has its `cwd` does not spin), then the dead-letter queue. The task's row in
 * `rein_batch_tasks` still says how it ended.
 */
export const JOB_RETRY = { retryLimit: RETRY_LIMIT, retryDelay: 1, retryBackoff: true, deadLetter: DEAD_QUEUE } as const

/** The job carries only the task's key; the task itself is in `rein_batch_tasks`. */
export interface TaskJob {
  batch: string
  taskId: string
}

export type TaskStatus = 'queued' | 'running' | 'completed' | 'failed' | 'timeout' | 'cancelled'

/** The statuses no worker changes again (only `rein batch retry` requeues failed ones). */
export const FINAL_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'timeout', 'cancelled']

export interface TaskRow {
  batch: string
  task_id: string
  session_id: string
  job_id: string
  task: BatchTask
  status: TaskStatus
  result: TaskResult | null
  attempts: number
  worker: string | null
}

/** How long pg-boss lets a job stay active before its own expiry retries it: the task's timeout, with room to close. */
export function expirySeconds(task: BatchTask): number {
  return Math.min(23 * 3600, Math.ceil((task.timeoutS ?? 3600) + 120))
}

export interface QueueOptions {
  maintenanceSeconds?: number
  supervise?: boolean
  /** Connections pg-boss may hold (default 2). */
  connections?: number
  /** Stops waiting for an unreachable database. */
  signal?: AbortSignal
  /** Gives up waiting for the database after this long, ms (default: while the signal allows). */
  withinMs?: number
  /** pg-boss's own errors (a maintenance pass that failed); default: one line on stderr. */
  onError?: (error: Error) => void
}

/** The advisory lock key under which processes set up pg-boss one at a time ("reiq"); used for nothing else. */
const QUEUE_SETUP_LOCK = 0x72656971

/**
 * Starts pg-boss on the store's database (its tables live in the `pgboss` schema) and makes sure the queue exists.
 * Set-up runs under an advisory lock, so workers and batches starting at once do not deadlock creating pg-boss's
 * schema or the queue, and is retried while the database is unreachable.
 */
export async function openQueue(url: string, options: QueueOptions = {}): Promise<PgBoss> {
  try {
    return await retryDb(() => startQueue(url, options), { signal: options.signal, withinMs: options.withinMs })
  } catch (error) {
    throw connectionError(error, safeUrl(url))
  }
}

async function startQueue(url: string, options: QueueOptions): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: url,
    max: options.connections ?? 2,
    supervise: options.supervise ?? false,
    schedule: false,
    maintenanceIntervalSeconds: options.maintenanceSeconds ?? 30,
  })
  boss.on('error', options.onError ?? ((error: Error) => process.stderr.write(`rein: the job queue reported a problem: ${error.message}\n`)))
  const lock = new pg.Client({ connectionString: url })
  lock.on('error', () => {
    // The lock's connection broke: the lock is gone with it, and the set-up below fails and is retried.
  })
  try {
    await lock.connect()
    await lock.query('SELECT pg_advisory_lock($1)', [QUEUE_SETUP_LOCK])
    await boss.start()
    if (!(await boss.getQueue(DEAD_QUEUE))) await boss.createQueue(DEAD_QUEUE, { name: DEAD_QUEUE })
    if (!(await boss.getQueue(QUEUE))) await boss.createQueue(QUEUE, { name: QUEUE, ...JOB_RETRY })
    return boss
  } catch (error) {
    await boss.stop({ graceful: false, wait: false }).catch(() => {
      // It never started: there is nothing to stop, and the start failure is the error to report.
    })
    throw error
  } finally {
    // Ending the session releases the advisory lock.
    await lock.end().catch(() => {})
  }
}

/** A small pool for the fleet's own tables; idle connections never keep a command alive. */
export function fleetPool(url: string, max = 2): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, allowExitOnIdle: true })
  pool.on('error', () => {
    // An idle connection broke: the pool drops it and opens another for the next query.
  })
  return pool
}

/** This process, as workers name themselves in `rein_workers` and `rein_batch_tasks.worker`. */
export function workerName(): string {
  return `${hostname()}:${process.pid}`
}
