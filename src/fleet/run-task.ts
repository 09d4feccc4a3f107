import { spawn } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readSessionLog } from '../session/load.js'
import { SessionError } from '../store/errors.js'
import type { SessionStore } from '../store/store.js'
import { workspaceTrust } from '../runtime/workspace-trust.js'
import { outcomeOf, usageFields, type TaskResult } from './outcome.js'
import type { BatchTask } from './task.js'
import { prepareWorkspace, runSetup, workspaceExists, workspacePath } from './workspace.js'
import { childEnv } from '../tools/child-env.js'
import { isTransientDbError } from './db-retry.js'
import { loadSettings } from '../config/settings.js'
import { coveredEntry } from '../permissions/copy-check.js'
import { homedir } from 'node:os'
import { relative } from 'node:path'

/** The built CLI this process runs from; each task is one `rein -p` child, so a hung or crashed task is contained. */
const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url))

/** What a retried task is told when its session already holds the conversation: the log is the truth. */
export const CONTINUE_PROMPT =
  'This task was interrupted before it finished (the process running it stopped). Continue the task from where it stopped; do not redo finished work.'

/** How long a stopped task gets to close its turn before it is killed. */
const GRACE_MS = 10_000
/** How long a `setup` command may run when the task sets no timeout. */
const SETUP_MS = 30 * 60_000

export interface TaskRun {
  task: BatchTask
  /** The task's session: created by the first attempt, resumed by every later one. */
  sessionId: string
  /** Where workspaces live (`<root>/<task id>`). */
  workspaces: string
  store: SessionStore
  /** The store the child writes the session to (as `REIN_STORE`). */
  storeUrl: string
  home: string
  env: NodeJS.ProcessEnv
  /** Which attempt this is, from 1. */
  attempt: number
  /** Aborting stops the task (SIGTERM, then SIGKILL): its result is `interrupted` and a later attempt resumes it. */
  signal: AbortSignal
  /** Runs the attempt's own store reads, waiting out an unreachable database (the worker's policy); default: once. */
  retry?: <T>(what: string, call: () => Promise<T>) => Promise<T>
  /**
   * Aborted (with a sentence as its reason) when the task's process stopped answering — frozen, so only SIGKILL
   * reaches it: it is killed at once and the attempt ends `cut-short`, to be resumed.
   */
  hung?: AbortSignal
  /** Told the task process's pid once it started (what `hung` watches). */
  spawned?: (pid: number) => void
}

/**
 * How an attempt ended. `cut-short`: the task's process ended before its turn did, for a reason that says nothing
 * about the task: it could not use the session store (the database restarted, dropped it, or had no connection left),
 * or a signal Rein did not send killed it (the OOM killer, an operator). The caller resumes it later.
 */
export type TaskEnd = { kind: 'finished'; result: TaskResult } | { kind: 'interrupted' } | { kind: 'cut-short'; why: string }

/** Runs one attempt of a task to its end: workspace, setup, the agent, then the outcome read from the session log. */
export async function runTask(run: TaskRun): Promise<TaskEnd> {
  const started = Date.now()
  const { task } = run
  const failed = (error: string, sessionId: string | null = null, status: 'failed' | 'timeout' = 'failed'): TaskEnd => ({
    kind: 'finished',
    result: { id: task.id, status, session_id: sessionId, result: '', usage: usageFields({ inputUncached: 0, inputCacheRead: 0, output: 0, reasoning: 0 }), cost_usd: 0, duration_ms: Date.now() - started, attempts: run.attempt, error },
  })

  let dir: string
  try {
    dir = await workspaceFor(run)
  } catch (error) {
    if (run.signal.aborted) return { kind: 'interrupted' }
    return failed(error instanceof Error ? error.message : String(error))
  }
  if (run.signal.aborted) return { kind: 'interrupted' }

  const retry = run.retry ?? ((_what, call) => call())
  const before = await retry('reading the session', () => existingLog(run.store, run.sessionId))
  const prompt = before?.prompted ? CONTINUE_PROMPT : task.prompt
  const args = [CLI, '-p', '--output-format', 'json', '--cwd', dir]
  args.push(...(before ? ['--resume', run.sessionId] : ['--session-id', run.sessionId]))
  if (task.model) args.push('--model', task.model)
  if (task.effort) args.push('--effort', task.effort)
  if (task.permissionMode) args.push('--permission-mode', task.permissionMode)
  if (task.maxTurns) args.push('--max-turns', String(task.maxTurns))
  if (task.userId) args.push('--user-id', task.userId)
  // A budget covers every attempt: what earlier attempts spent (from the log) is taken off this one's.
  const spentUsd = before?.cost ?? 0
  const spentTokens = before ? before.usage.inputUncached + before.usage.inputCacheRead + before.usage.output : 0
  if (task.maxCostUsd !== undefined && spentUsd >= task.maxCostUsd) {
    return failed(`the task reached its budget of $${task.maxCostUsd} (spent $${spentUsd.toFixed(6)}) in earlier attempts; it was not run again.`, run.sessionId)
  }
  if (task.maxTokens !== undefined && spentTokens >= task.maxTokens) {
    return failed(`the task reached its budget of ${task.maxTokens} tokens (used ${spentTokens}) in earlier attempts; it was not run again.`, run.sessionId)
  }
  if (task.maxCostUsd !== undefined) args.push('--max-budget-usd', String(task.maxCostUsd - spentUsd))
  if (task.maxTokens !== undefined) args.push('--max-budget-tokens', String(task.maxTokens - spentTokens))
  if (sourceTrusted(task, run.home)) args.push('--trust-project')
  // Last: a variadic option takes every word after it.
  if (task.allow?.length) args.push('--allow', ...task.allow)

  // The store goes by environment, not argument: a database URL may hold a password, and arguments are public (ps).
  const env = { ...run.env, REIN_HOME: run.home, REIN_STORE: run.storeUrl }
  const child = spawn(process.execPath, args, { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] })
  child.stdin.end(prompt)
  if (child.pid !== undefined) run.spawned?.(child.pid)
  let stderr = ''
  // The json result (stdout) says why a run failed when stderr does not (a store lost mid-turn).
  let stdout = ''
  // Enough of the end for a crash's whole report: its error line comes before the stack and the error's fields.
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-16_384)))
  child.stdout.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString()).slice(-65_536)))
  let timedOut = false
  let killer: NodeJS.Timeout | undefined
  const stop = (): void => {
    child.kill('SIGTERM')
    killer ??= setTimeout(() => child.kill('SIGKILL'), GRACE_MS)
  }
  const timer = task.timeoutS ? setTimeout(() => ((timedOut = true), stop()), task.timeoutS * 1000) : undefined
  run.signal.addEventListener('abort', stop, { once: true })
  const kill = (): void => void child.kill('SIGKILL')
  run.hung?.addEventListener('abort', kill, { once: true })
  const exit = await new Promise<{ code: number | null; signal?: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.on('error', (error) => resolve({ code: null, error }))
    child.on('close', (code, signal) => resolve({ code, signal }))
  })
  clearTimeout(timer)
  clearTimeout(killer)
  run.signal.removeEventListener('abort', stop)
  run.hung?.removeEventListener('abort', kill)
  if (exit.error) return failed(`rein could not start for task ${task.id}: ${exit.error.message}.`)
  if (run.signal.aborted && !timedOut) return { kind: 'interrupted' }
  if (run.hung?.aborted && !timedOut) return { kind: 'cut-short', why: String(run.hung.reason) }

  const lastWords = lastWordsOf(stderr)
  if (exit.code !== 0 && !timedOut) {
    // A process that crashed on a lost connection prints a stack and `Node.js vNN` last: look through every line.
    const lostLine = stderr.trim().split('\n').reverse().find((line) => storeLost(line))?.trim()
    const why = [lastWords, resultError(stdout), lostLine].find((words) => words && storeLost(words))
    if (why) return { kind: 'cut-short', why }
  }
  const after = await retry('reading the session', () => existingLog(run.store, run.sessionId))
  // Killed by someone else (the OOM killer, an operator) before it closed a turn: nothing is wrong with the task, and
  // whatever it logged is kept; resume it like a process that lost the store.
  if (exit.signal && !timedOut && (after?.turnEnds ?? 0) === (before?.turnEnds ?? 0)) {
    return { kind: 'cut-short', why: `its rein process was killed by ${exit.signal}` }
  }
  // A process that failed without closing its turn in the log could not write the log: the store went away under it.
  if (exit.code !== 0 && !timedOut && after && after.turnEnds === (before?.turnEnds ?? 0)) {
    return { kind: 'cut-short', why: lastWords || resultError(stdout) || 'it exited without closing its turn in the session log' }
  }
  // A timeout that struck before the session existed (a slow start on a loaded machine) is still the task's timeout.
  if (!after && timedOut) return failed(`the task ran past its timeout of ${task.timeoutS} s and was stopped.`, null, 'timeout')
  if (!after) return failed(lastWords || `rein exited with code ${exit.code} before the task's session was created.`)
  const status = timedOut ? 'timeout' : after.reason === 'completed' && exit.code === 0 ? 'completed' : 'failed'
  const error =
    status === 'timeout'
      ? `the task ran past its timeout of ${task.timeoutS} s and was stopped.`
      : status === 'failed'
        ? after.error || lastWords || resultError(stdout) || `the task's last turn ended ${after.reason ?? 'without finishing'} (rein exited with code ${exit.code})`
        : undefined
  return {
    kind: 'finished',
    result: {
      id: task.id,
      status,
      session_id: run.sessionId,
      result: after.text,
      usage: usageFields(after.usage),
      cost_usd: Number(after.cost.toFixed(6)),
      duration_ms: Date.now() - started,
      attempts: run.attempt,
      ...(error ? { error } : {}),
    },
  }
}

/**
 * The sentence a task's rein process ended on: its last stderr line, or, when it crashed (Node prints the stack, the
 * error's fields and `Node.js vNN` last), the error's own line.
 */
export function lastWordsOf(stderr: string): string | undefined {
  const lines = stderr.trim().split('\n')
  const last = lines.at(-1)?.replace(/^rein: /, '')
  if (!last || !/^Node\.js v\d/.test(last)) return last
  const thrown = lines.findLast((line) => /^([A-Za-z]*[Ee]rror|[A-Z][A-Za-z]*Exception)\b[^:\n]*: ./.test(line))
  return thrown ? `rein crashed: ${thrown.trim()}` : last
}

/** The error text of a `--output-format json` result, when it reports one. */
function resultError(stdout: string): string | undefined {
  try {
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as { is_error?: boolean; result?: unknown }
    return result.is_error && typeof result.result === 'string' && result.result ? result.result : undefined
  } catch {
    return undefined
  }
}

/** True when a task process's last words say the session store failed it, not the task. */
function storeLost(lastWords: string): boolean {
  return isTransientDbError(new Error(lastWords))
}

/** The task's workspace: the one a previous attempt on this machine finished preparing, else a new one. */
async function workspaceFor(run: TaskRun): Promise<string> {
  const ready = join(run.workspaces, `.${run.task.id}.ready`)
  if (existsSync(ready) && (await workspaceExists(run.workspaces, run.task))) return workspacePath(run.workspaces, run.task)
  const dir = await prepareWorkspace(run.workspaces, run.task, (tree, source) => copyRefusal(run, tree, source))
  if (run.task.setup) {
    // The setup command is the tasks file's, run next to the store: it gets no secret, the store URL least of all.
    const env = childEnv(run.env, { secretValues: [run.storeUrl] })
    await runSetup(dir, run.task, env, run.task.timeoutS ? run.task.timeoutS * 1000 : SETUP_MS)
  }
  writeFileSync(ready, `${new Date().toISOString()}\n`)
  return dir
}

/**
 * Why the task's source may not be copied into its workspace: it holds a file that a `Read` deny rule (the user's, or
 * the source's own project files') or Rein's home covers where it lives, and the copy would be an ordinary read.
 */
function copyRefusal(run: TaskRun, tree: string, source: string): string | undefined {
  const deny = loadSettings(source, run.home).permissions?.deny ?? []
  const covered = coveredEntry(tree, { deny, home: run.env.HOME ?? homedir(), reinHome: run.home, judgeAs: source })
  if (!covered) return undefined
  const what = run.task.source.kind === 'dir' ? 'cwd' : 'repo'
  const inside = relative(source, covered.path) || '.'
  return `task ${run.task.id}: its ${what} ${source} holds ${inside}, which may not be read (${covered.why}); a copy would make it readable, so the task was not run. Point ${what} at a folder without it.`
}

/** The outcome of the task's session so far, or undefined when it has none yet. */
async function existingLog(store: SessionStore, id: string): Promise<ReturnType<typeof outcomeOf> | undefined> {
  try {
    return outcomeOf((await readSessionLog(store, id)).events)
  } catch (error) {
    if (error instanceof SessionError && error.code === 'not-found') return undefined
    throw error
  }
}

/**
 * Whether the task's workspace copy is trusted: only when the person running the batch trusted its source (a
 * directory, or a local repository) with `rein trust`. Nothing in the tasks file can grant trust.
 */
function sourceTrusted(task: BatchTask, home: string): boolean {
  const path = task.source.kind === 'dir' ? task.source.path : task.source.repo
  if (task.source.kind === 'repo' && !path.startsWith('/')) return false
  return workspaceTrust({ cwd: path, home }).status === 'trusted'
}
