import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type PgBoss from 'pg-boss'
import { readSessionLog } from '../session/load.js'
import { SessionError } from '../store/errors.js'
import { PostgresStore } from '../store/postgres/store.js'
import { backoffMs, isTransientDbError, retryDb } from './db-retry.js'
import { outcomeOf, usageFields, type TaskResult } from './outcome.js'
import { fleetPool, openQueue, QUEUE, workerName, type TaskJob, type TaskRow } from './queue.js'
import { WorkerMetrics } from './metrics.js'
import type { LogFields } from './log-line.js'
import { HungTask } from './hung-task.js'
import { DEFAULT_POLICY, policyRefusal, type WorkerPolicy } from './policy.js'
import { runTask } from './run-task.js'
import { finishRow, handBack, reapDead, type Retry } from './task-rows.js'

export interface WorkerOptions {
  url: string
  concurrency: number
  /** Workspaces live at `<workdir>/<batch>/<task id>`. */
  workdir: string
  home: string
  env: NodeJS.ProcessEnv
  /** Aborting drains the worker: no new jobs; running tasks are stopped and handed back to the queue. */
  signal: AbortSignal
  /** A worker silent this long is taken for dead and its tasks are retried elsewhere. */
  staleMs: number
  /** How often pg-boss's maintenance (job expiry) runs, seconds. */
  maintenanceSeconds: number
  /** One line per event a person running the worker wants to see, with what it is about (log-line.ts). */
  log: (line: string, fields?: LogFields) => void
  /** What a task may ask for (policy.ts); default DEFAULT_POLICY. */
  policy?: WorkerPolicy
  /** Serve Prometheus metrics and health on this port of 127.0.0.1 (0: any free port). */
  metricsPort?: number
  /** The address metrics listen on (default 127.0.0.1; `0.0.0.0` in a container whose port is published). */
  metricsHost?: string
}

/** How often a running task's row is touched (its heartbeat) and checked for cancellation, ms (at most a quarter of the stale time). */
const TASK_WATCH_MS = 2000

/** How often a task whose process was cut short (run-task.ts) is resumed within one job before it fails. */
const CUT_SHORT_RESUMES = 8

/** Connections one worker holds at most: its own pool, pg-boss's and the store's (each task's `rein -p` adds its own). */
export const WORKER_CONNECTIONS = { fleet: 2, queue: 2, store: 2 }

/**
 * One worker: takes task jobs from the queue, `concurrency` at a time, and runs each in its own workspace.
 *
 * What holds:
 * - The worker does not exit on a database error: every call is retried with backoff while the database is
 *   unreachable (restart, terminated connection, full connection table), and a job's handling never throws out.
 * - A task whose session already ended its last turn `completed` is never run again: the session is read once the
 *   writer lease is free (a previous attempt still running finishes first), and the job is finished from the log.
 * - A stopped task (this worker drained) goes back to the queue for another attempt, which resumes its session.
 * - While alive, the worker heartbeats in `rein_workers`; it reaps the running tasks of workers that stopped
 *   heartbeating, failing their jobs so pg-boss retries them.
 */
export async function runWorker(options: WorkerOptions): Promise<void> {
  const me = workerName()
  const log = (line: string, fields?: LogFields): void => options.log(line, { worker: me, ...fields })
  const metrics = new WorkerMetrics()
  const served = options.metricsPort === undefined ? undefined : await metrics.serve(options.metricsPort, options.metricsHost)
  if (served) log(`worker ${me}: metrics at http://${options.metricsHost ?? '127.0.0.1'}:${served.port}/metrics, health at /healthz.`)
  const retry: Retry = (what, call) =>
    retryDb(call, {
      onRetry: (error, attempt, delay) => {
        metrics.dbErrors.inc()
        if (attempt % 20 === 1) log(`${what}: the database is unreachable (${messageOf(error)}); trying again in ${delay} ms.`, { level: 'error' })
      },
    })
  /** Start-up retries stop when the worker is stopped. */
  const startRetry: Retry = (what, call) =>
    retryDb(call, { signal: options.signal, onRetry: (error, attempt, delay) => attempt % 20 === 1 && log(`${what}: the database is unreachable (${messageOf(error)}); trying again in ${delay} ms.`, { level: 'error' }) })

  const store = new PostgresStore(options.url, undefined, { maxConnections: WORKER_CONNECTIONS.store })
  await startRetry('setting up the store', () => store.migrated())
  const pool = fleetPool(options.url, WORKER_CONNECTIONS.fleet)
  const heartbeat = (): Promise<unknown> =>
    pool.query(
      `INSERT INTO rein_workers (id, host, pid, concurrency) VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET seen_at = now(), concurrency = EXCLUDED.concurrency`,
      [me, me.slice(0, me.lastIndexOf(':')), process.pid, options.concurrency],
    )
  await startRetry('announcing the worker', heartbeat)
  const boss = await openQueue(options.url, {
    supervise: true,
    maintenanceSeconds: options.maintenanceSeconds,
    connections: WORKER_CONNECTIONS.queue,
    signal: options.signal,
    onError: (error) => log(`the job queue reported a problem: ${error.message}`, { level: 'error' }),
  })
  // A failed heartbeat or reap (the database briefly out of reach) is tried again on the next tick; a worker that
  // stays cut off for the stale time is reaped by the others, which is the point.
  const beat = setInterval(() => void heartbeat().catch(() => {}), Math.max(200, options.staleMs / 4))
  let reaping = false
  const reap = setInterval(() => {
    if (reaping) return
    reaping = true
    reapDead(pool, boss, retry, me, options.staleMs, log)
      .catch((error: unknown) => log(`reaping dead workers failed: ${messageOf(error)}`, { level: 'error' }))
      .finally(() => (reaping = false))
  }, Math.max(500, options.staleMs / 2))

  /** Runs one job to its end. Never throws: a failure hands the task back with the reason, or is logged. */
  const handle = async (job: PgBoss.JobWithMetadata<TaskJob>): Promise<void> => {
    let claimed: TaskRow | undefined
    try {
      await attempt(job, (row) => (claimed = row))
    } catch (error) {
      const why = messageOf(error)
      log(`task ${job.data.batch}/${job.data.taskId}: ${why}`, { batch: job.data.batch, task: job.data.taskId, level: 'error' })
      await (claimed ? handBack(pool, boss, retry, claimed, why) : retry('failing a job', () => boss.fail(QUEUE, job.id, { message: why }))).catch(
        (again: unknown) => log(`task ${job.data.batch}/${job.data.taskId}: could not hand the task back (${messageOf(again)}); pg-boss's expiry will.`, { batch: job.data.batch, task: job.data.taskId, level: 'error' }),
      )
    }
  }

  const attempt = async (job: PgBoss.JobWithMetadata<TaskJob>, claim: (row: TaskRow) => void): Promise<void> => {
    const claimed = await retry('claiming a task', () =>
      pool.query<TaskRow>(
        `UPDATE rein_batch_tasks SET status = 'running', attempts = attempts + 1, worker = $2, updated_at = now()
         WHERE job_id = $1 AND status NOT IN ('completed', 'failed', 'timeout', 'cancelled') RETURNING *`,
        [job.id, me],
      ),
    )
    const row = claimed.rows[0]
    if (!row) {
      await retry('completing a job', () => boss.complete(QUEUE, job.id))
      return
    }
    claim(row)
    const refused = policyRefusal(row.task, options.policy ?? DEFAULT_POLICY, me)
    if (refused) {
      log(refused, { batch: row.batch, task: row.task_id })
      await finishRow(pool, boss, retry, row, refusedResult(row, refused))
      return
    }
    const source = row.task.source
    if (source.kind === 'dir' && !existsSync(source.path)) {
      const why = `its cwd ${source.path} does not exist on worker ${me}`
      log(`task ${row.batch}/${row.task_id}: ${why}; handed back for a worker that has it.`, { batch: row.batch, task: row.task_id })
      await handBack(pool, boss, retry, row, why)
      return
    }
    await leaseFree(store, row.session_id, options.signal, retry)
    // Read after the lease is free: an earlier attempt still running (its worker gone, its child alive) may just
    // have completed the task, and must not be run again.
    const done = await retry('reading the session', () => finishedOutcome(store, row))
    if (done) {
      log(`task ${row.batch}/${row.task_id}: already completed in its session; not run again.`, { batch: row.batch, task: row.task_id })
      await finishRow(pool, boss, retry, row, done)
      return
    }
    // While the task runs, its row is its heartbeat; a row no longer `running` for this attempt (the batch was
    // cancelled, or the task was handed to another worker) stops the task here.
    const disowned = new AbortController()
    const signal = AbortSignal.any([options.signal, disowned.signal])
    const hung = new HungTask()
    const watch = setInterval(() => {
      void hung.check(pool, row.session_id)
      pool
        .query(`UPDATE rein_batch_tasks SET updated_at = now() WHERE job_id = $1 AND attempts = $2 AND status = 'running'`, [row.job_id, row.attempts])
        .then((owned) => owned.rowCount === 0 && disowned.abort())
        .catch(() => {
          // The database is unreachable: the task goes on, and the next tick asks again.
        })
    }, Math.min(TASK_WATCH_MS, options.staleMs / 4))
    try {
      if (await runAttempts(row, signal, hung)) return
    } finally {
      clearInterval(watch)
    }
    if (disowned.signal.aborted && !options.signal.aborted) {
      log(`task ${row.batch}/${row.task_id}: cancelled or taken over elsewhere; stopped here.`, { batch: row.batch, task: row.task_id })
      return
    }
    log(`task ${row.batch}/${row.task_id}: stopped; handed back to the queue.`, { batch: row.batch, task: row.task_id })
    await handBack(pool, boss, retry, row, `worker ${me} stopped the task`)
  }

  /** Runs the task until it ends (true) or is stopped (false), resuming it while its process cannot use the database. */
  const runAttempts = async (row: TaskRow, signal: AbortSignal, hung: HungTask): Promise<boolean> => {
    for (let tries = 0; ; tries++) {
      if (signal.aborted) return false
      if (tries === 0) log(`task ${row.batch}/${row.task_id}: attempt ${row.attempts} started.`, { batch: row.batch, task: row.task_id })
      metrics.started.inc()
      metrics.running.inc()
      const watched = hung.next()
      const end = await runTask({
        task: row.task,
        sessionId: row.session_id,
        workspaces: join(options.workdir, row.batch),
        store,
        storeUrl: options.url,
        home: options.home,
        env: options.env,
        attempt: row.attempts,
        signal,
        retry,
        hung: watched.signal,
        spawned: watched.spawned,
      }).finally(() => metrics.running.dec())
      if (end.kind === 'interrupted') return false
      if (end.kind === 'cut-short' && tries < CUT_SHORT_RESUMES) {
        // The task's own process lost the database (restart, full connection table), was killed by someone else or
        // froze: not the task's fault. Its session is resumed once the database answers, under the same job.
        const delay = backoffMs(tries + 3)
        log(`task ${row.batch}/${row.task_id}: its process stopped before its turn ended (${end.why}); resuming it in ${delay} ms.`, { batch: row.batch, task: row.task_id, level: 'error' })
        await sleep(delay, undefined, { signal }).catch(() => {})
        continue
      }
      const result = end.kind === 'cut-short' ? cutShortResult(row, end.why) : end.result
      if (/is open for writing/.test(result.error ?? '')) return false
      await finishRow(pool, boss, retry, row, result)
      metrics.finished.inc({ status: result.status })
      metrics.duration.observe(result.duration_ms / 1000)
      metrics.tokens.inc({ kind: 'input' }, result.usage.input_tokens)
      metrics.tokens.inc({ kind: 'cache_read' }, result.usage.cache_read_input_tokens)
      metrics.tokens.inc({ kind: 'output' }, result.usage.output_tokens)
      metrics.cost.inc(result.cost_usd)
      log(`task ${row.batch}/${row.task_id}: ${result.status}.`, { batch: row.batch, task: row.task_id, level: result.status === 'completed' ? 'info' : 'error' })
      return true
    }
  }

  /** One of `concurrency` slots: fetches a job, runs it, and again, until the worker drains. */
  const slot = async (): Promise<void> => {
    while (!options.signal.aborted) {
      const jobs = await boss.fetch<TaskJob>(QUEUE, { batchSize: 1, includeMetadata: true }).catch((error: unknown) => {
        log(`fetching a task failed: ${messageOf(error)}`, { level: 'error' })
        return []
      })
      if (jobs.length) await handle(jobs[0])
      else await sleep(500, undefined, { signal: options.signal }).catch(() => {})
    }
  }

  log(`worker ${me} is taking tasks (${options.concurrency} at a time).`)
  options.signal.addEventListener('abort', () => (metrics.healthy = false), { once: true })
  await Promise.all(Array.from({ length: options.concurrency }, slot))
  await served?.close()
  clearInterval(beat)
  clearInterval(reap)
  await boss.stop({ graceful: false, wait: true, timeout: 5_000 }).catch(() => {
    // The database is gone: nothing is left to close on the server side.
  })
  await pool.query('DELETE FROM rein_workers WHERE id = $1', [me]).catch(() => {
    // Unreachable database: the row goes stale and the others treat this worker as gone, which it is.
  })
  await pool.end()
  await store.close()
}

function cutShortResult(row: TaskRow, why: string): TaskResult {
  return { ...refusedResult(row, `the task's process stopped before its turn ended ${CUT_SHORT_RESUMES + 1} times in a row (last: ${why}).`), session_id: row.session_id }
}

function refusedResult(row: TaskRow, error: string): TaskResult {
  const usage = usageFields({ inputUncached: 0, inputCacheRead: 0, output: 0, reasoning: 0 })
  return { id: row.task_id, status: 'failed', session_id: null, result: '', usage, cost_usd: 0, duration_ms: 0, attempts: row.attempts, error }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
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
async function leaseFree(store: PostgresStore, sessionId: string, signal: AbortSignal, retry: Retry): Promise<void> {
  while (!signal.aborted) {
    try {
      await retry('taking the session lease', async () => (await store.lease(sessionId)).release())
      return
    } catch (error) {
      if (error instanceof SessionError && error.code === 'not-found') return
      if (!(error instanceof SessionError && error.code === 'busy') && !isTransientDbError(error)) throw error
    }
    await sleep(1000)
  }
}
