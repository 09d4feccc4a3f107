import { relative, isAbsolute } from 'node:path'
import type { PermissionMode } from '../agent/types.js'
import type { BatchTask } from './task.js'

/**
 * What a worker lets a queued task ask for (`rein worker --max-permission-mode`, `--allow-setup`, `--allow-task-rules`,
 * `--allow-cwd-anywhere`). The database is a trust boundary: whoever can queue a task runs it with the worker's
 * rights, so a worker runs by default only tasks that stay in their workspace with at most `accept-edits`.
 */
export interface WorkerPolicy {
  maxPermissionMode: PermissionMode
  allowSetup: boolean
  allowTaskRules: boolean
  allowCwdAnywhere: boolean
}

export const DEFAULT_POLICY: WorkerPolicy = { maxPermissionMode: 'accept-edits', allowSetup: false, allowTaskRules: false, allowCwdAnywhere: false }

/** Modes by what they let the agent do without asking: plan (read only) < default < accept-edits < bypass. */
const REACH: Record<PermissionMode, number> = { plan: 0, default: 1, 'accept-edits': 2, bypass: 3 }

/** One sentence saying why this worker refuses the task, or undefined when the policy admits it. */
export function policyRefusal(task: BatchTask, policy: WorkerPolicy, worker: string): string | undefined {
  const mode = task.permissionMode ?? 'default'
  const refuse = (what: string, flag: string): string => `task ${task.id} asks for ${what}, which worker ${worker} does not allow (start it with ${flag} to allow it); it was not run.`
  if (REACH[mode] > REACH[policy.maxPermissionMode]) return refuse(`permission mode ${mode}`, `--max-permission-mode ${mode}`)
  if (task.setup !== undefined && !policy.allowSetup) return refuse('a setup command', '--allow-setup')
  if (task.allow?.length && !policy.allowTaskRules) return refuse(`the allow rules ${task.allow.join(', ')}`, '--allow-task-rules')
  if (task.source.kind === 'dir' && task.fileDir !== undefined && !policy.allowCwdAnywhere) {
    const inside = relative(task.fileDir, task.source.path)
    if (inside.startsWith('..') || isAbsolute(inside)) return refuse(`the cwd ${task.source.path}, outside its tasks file's folder ${task.fileDir}`, '--allow-cwd-anywhere')
  }
  return undefined
}
