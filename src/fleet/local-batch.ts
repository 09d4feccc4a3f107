import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SessionStore } from '../store/store.js'
import type { TaskResult } from './outcome.js'
import type { Progress } from './progress.js'
import { appendResult, readResults } from './results-file.js'
import { runTask } from './run-task.js'
import type { BatchTask } from './task.js'

export interface LocalBatch {
  tasks: BatchTask[]
  /** The results file (`--out`). */
  out: string
  /** Holds `workspaces/<task id>` and `tasks/<task id>.json` (the task's session id and attempts). */
  workdir: string
  concurrency: number
  store: SessionStore
  storeUrl: string
  home: string
  env: NodeJS.ProcessEnv
  /** Run again the tasks whose last result is not `completed`. */
  retryFailed: boolean
  signal: AbortSignal
  progress: (pending: number) => Progress
}

/** What a local batch run did. */
export interface BatchSummary {
  completed: number
  failed: number
  /** Tasks started but stopped by the interrupt: a re-run resumes their sessions. */
  interrupted: number
  /** Tasks skipped because the results file already had them. */
  skipped: number
}

/**
 * Runs a batch on this machine, `concurrency` tasks at a time, and appends each result to `out` as it finishes.
 *
 * What holds:
 * - A task with a result line is never run again (unless `retryFailed` and it did not complete); every other task
 *   is, so an interrupted batch re-run with the same files finishes only what is missing.
 * - A task keeps one session across attempts (its id is in `tasks/<id>.json` before the first attempt starts), so an
 *   attempt after an interruption resumes the conversation from the log instead of starting over.
 * - An interrupt stops starting tasks and stops the running ones (their turns close as interrupted); nothing
 *   already written to `out` or to a session log is lost.
 */
export async function runLocalBatch(batch: LocalBatch): Promise<BatchSummary> {
  const known = readResults(batch.out)
  const pending = batch.tasks.filter((task) => {
    const result = known.get(task.id)
    return !result || (batch.retryFailed && result.status !== 'completed')
  })
  const summary: BatchSummary = { completed: 0, failed: 0, interrupted: 0, skipped: batch.tasks.length - pending.length }
  const progress = batch.progress(pending.length)
  mkdirSync(join(batch.workdir, 'tasks'), { recursive: true })
  const queue = [...pending]
  const lane = async (): Promise<void> => {
    for (let task = queue.shift(); task && !batch.signal.aborted; task = queue.shift()) {
      const state = taskState(batch.workdir, task.id)
      state.attempts++
      saveTaskState(batch.workdir, task.id, state)
      progress.startedOne()
      const end = await runTask({
        task,
        sessionId: state.sessionId,
        workspaces: join(batch.workdir, 'workspaces'),
        store: batch.store,
        storeUrl: batch.storeUrl,
        home: batch.home,
        env: batch.env,
        attempt: state.attempts,
        signal: batch.signal,
      })
      // A task whose process lost its store is left for a re-run, as an interrupted one: the task did not fail.
      if (end.kind === 'interrupted' || end.kind === 'cut-short') {
        summary.interrupted++
        progress.stopped()
        continue
      }
      const result: TaskResult = end.result
      appendResult(batch.out, result)
      if (result.status === 'completed') summary.completed++
      else summary.failed++
      progress.finished(result)
    }
  }
  await Promise.all(Array.from({ length: Math.min(batch.concurrency, Math.max(1, pending.length)) }, lane))
  progress.end()
  return summary
}

interface TaskState {
  sessionId: string
  attempts: number
}

function taskState(workdir: string, id: string): TaskState {
  const path = join(workdir, 'tasks', `${id}.json`)
  if (existsSync(path)) {
    try {
      const state = JSON.parse(readFileSync(path, 'utf8')) as Partial<TaskState>
      if (typeof state.sessionId === 'string' && typeof state.attempts === 'number') return { sessionId: state.sessionId, attempts: state.attempts }
    } catch {
      // A state file torn by a crash: the task starts a new session (its old one stays in the store).
    }
  }
  return { sessionId: randomUUID(), attempts: 0 }
}

/** Written to a temporary file and renamed, so a crash leaves the old state or the new, never half of one. */
function saveTaskState(workdir: string, id: string, state: TaskState): void {
  const path = join(workdir, 'tasks', `${id}.json`)
  writeFileSync(`${path}.tmp`, JSON.stringify(state))
  renameSync(`${path}.tmp`, path)
}
