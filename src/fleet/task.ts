import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { dirname, isAbsolute, resolve } from 'node:path'
import { z } from 'zod'
import { PERMISSION_MODES, type PermissionMode } from '../agent/types.js'
import type { Effort } from '../llm/adapter.js'

/**
 * One task of a batch, as checked from one line of `tasks.jsonl`. Exactly one of `cwd` (a directory, copied for the
 * run) and `repo` (a git repository, cloned at `commit`) says where it runs; a relative `cwd` or local `repo` is
 * resolved against the tasks file's directory.
 */
export interface BatchTask {
  id: string
  /** 1-based line of the tasks file, for messages. */
  line: number
  /** The tasks file's folder, against which a relative `cwd` was resolved (a worker's policy judges `cwd` by it). */
  fileDir?: string
  prompt: string
  source: { kind: 'dir'; path: string } | { kind: 'repo'; repo: string; commit?: string }
  model?: string
  effort?: Effort
  permissionMode?: PermissionMode
  allow?: string[]
  maxTurns?: number
  /** DeepSeek's `user_id` for the task's requests: whom it runs for (a tenant), so tenants share no KV-cache domain. */
  userId?: string
  timeoutS?: number
  /** The task's budget over all its attempts: USD at catalog prices, and tokens (input and output). */
  maxCostUsd?: number
  maxTokens?: number
  setup?: string
}

/** Limits `rein batch` applies to every task that sets none of its own (`--max-cost-usd`, `--max-tokens`, `--timeout-s`). */
export interface TaskDefaults {
  maxCostUsd?: number
  maxTokens?: number
  timeoutS?: number
}

/** Task ids name workspace directories and state files: a conservative alphabet, so an id never names a path. */
const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/
/** A commit-ish git accepts and that cannot be read as an option. */
const COMMIT = /^[A-Za-z0-9_][A-Za-z0-9._/^~-]{0,199}$/

const taskLine = z.strictObject({
  id: z.string().regex(TASK_ID, 'must be 1–100 letters, digits, dots, dashes or underscores, starting with a letter or digit'),
  prompt: z.string().refine((text) => text.trim() !== '', 'must not be empty'),
  cwd: z.string().min(1).optional(),
  repo: z.string().min(1).optional(),
  commit: z.string().regex(COMMIT, 'must be a commit id, branch or tag').optional(),
  model: z.string().min(1).optional(),
  effort: z.enum(['off', 'low', 'high', 'max']).optional(),
  permission_mode: z.enum(PERMISSION_MODES).optional(),
  allow: z.array(z.string().regex(/^[^-\s]/, 'must hold permission rules such as "Bash(npm test)"')).optional(),
  max_turns: z.number().int().positive().optional(),
  user_id: z.string().regex(/^[A-Za-z0-9_-]{1,512}$/, "must be 1 to 512 letters, digits, '_' or '-'").optional(),
  timeout_s: z.number().positive().max(7 * 24 * 3600).optional(),
  max_cost_usd: z.number().positive().optional(),
  max_tokens: z.number().int().positive().optional(),
  setup: z.string().min(1).optional(),
})

/** The checked tasks, or one sentence per bad line (nothing runs until the file is clean). */
export type TaskFile = { tasks: BatchTask[]; problems: [] } | { tasks: []; problems: string[] }

/** Reads and checks a tasks file. Blank lines are allowed; every other line must be one task object. */
export async function readTaskFile(path: string, defaults: TaskDefaults = {}): Promise<TaskFile> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'it does not exist' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message
    return { tasks: [], problems: [`cannot read the tasks file ${path}: ${why}.`] }
  }
  const base = dirname(resolve(path))
  const tasks: BatchTask[] = []
  const problems: string[] = []
  const seen = new Map<string, number>()
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim()
    if (raw === '') continue
    const where = `${path} line ${i + 1}`
    const checked = await checkLine(raw, base)
    if (typeof checked === 'string') {
      problems.push(`${where}: ${checked}`)
      continue
    }
    const earlier = seen.get(checked.id)
    if (earlier !== undefined) {
      problems.push(`${where}: the id "${checked.id}" is already used on line ${earlier}; give every task its own id.`)
      continue
    }
    seen.set(checked.id, i + 1)
    tasks.push({ ...withDefaults(checked, defaults), line: i + 1, fileDir: base })
  }
  if (problems.length) return { tasks: [], problems }
  if (!tasks.length) return { tasks: [], problems: [`${path} holds no tasks; write one JSON object per line.`] }
  return { tasks, problems: [] }
}

async function checkLine(raw: string, base: string): Promise<Omit<BatchTask, 'line'> | string> {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    return 'is not valid JSON; write one task object per line.'
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'is not a JSON object; write one task object per line.'
  const parsed = taskLine.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const field = issue.path.join('.')
    if (issue.code === 'unrecognized_keys') return `has the unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}; see docs/fleet.md for the task fields.`
    if (issue.code === 'invalid_type' && issue.input === undefined) return `has no "${field}"; every task needs one.`
    return `"${field}" ${issue.message.replace(/^Invalid input: /, '').toLowerCase()}.`
  }
  const task = parsed.data
  if ((task.cwd === undefined) === (task.repo === undefined)) return 'needs exactly one of "cwd" (a directory) and "repo" (a git repository).'
  if (task.commit !== undefined && task.repo === undefined) return '"commit" needs a "repo".'
  let source: BatchTask['source']
  if (task.cwd !== undefined) {
    const path = resolve(base, task.cwd)
    const found = await stat(path).catch(() => undefined)
    if (!found?.isDirectory()) return `"cwd" ${path} is not a directory.`
    source = { kind: 'dir', path }
  } else {
    const repo = task.repo!
    if (repo.startsWith('-')) return '"repo" must not start with a dash.'
    const remote = /^[a-z][a-z0-9+.-]*:\/\//i.test(repo) || /^[^/]+@[^/:]+:/.test(repo)
    const local = remote ? repo : isAbsolute(repo) ? repo : resolve(base, repo)
    if (!remote && !(await stat(local).catch(() => undefined))?.isDirectory()) return `"repo" ${local} is not a directory or a git URL.`
    source = { kind: 'repo', repo: local, ...(task.commit ? { commit: task.commit } : {}) }
  }
  return {
    id: task.id,
    prompt: task.prompt,
    source,
    ...(task.model ? { model: task.model } : {}),
    ...(task.effort ? { effort: task.effort } : {}),
    ...(task.permission_mode ? { permissionMode: task.permission_mode } : {}),
    ...(task.allow ? { allow: task.allow } : {}),
    ...(task.max_turns ? { maxTurns: task.max_turns } : {}),
    ...(task.user_id ? { userId: task.user_id } : {}),
    ...(task.timeout_s ? { timeoutS: task.timeout_s } : {}),
    ...(task.max_cost_usd ? { maxCostUsd: task.max_cost_usd } : {}),
    ...(task.max_tokens ? { maxTokens: task.max_tokens } : {}),
    ...(task.setup ? { setup: task.setup } : {}),
  }
}

function withDefaults<T extends Omit<BatchTask, 'line'>>(task: T, defaults: TaskDefaults): T {
  return {
    ...task,
    ...(task.maxCostUsd === undefined && defaults.maxCostUsd !== undefined ? { maxCostUsd: defaults.maxCostUsd } : {}),
    ...(task.maxTokens === undefined && defaults.maxTokens !== undefined ? { maxTokens: defaults.maxTokens } : {}),
    ...(task.timeoutS === undefined && defaults.timeoutS !== undefined ? { timeoutS: defaults.timeoutS } : {}),
  }
}

/**
 * A queued batch's default name: the tasks file's name and a hash of its tasks (as checked, without line numbers),
 * so a file run again with other prompts is a new batch, and the same tasks are the same batch wherever queued.
 */
export function contentName(fileStem: string, tasks: readonly BatchTask[]): string {
  const digest = createHash('sha256')
  for (const { line: _line, ...task } of tasks) digest.update(`${JSON.stringify(task)}\n`)
  return `${fileStem}-${digest.digest('hex').slice(0, 8)}`
}
