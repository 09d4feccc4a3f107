import { spawn } from 'node:child_process'
import { cp, mkdir, rm, stat } from 'node:fs/promises'
import { isAbsolute, join } from 'node:path'
import { childEnv } from '../tools/child-env.js'
import type { BatchTask } from './task.js'

/**
 * Each task runs in its own copy of its source, so parallel tasks never share a tree: `<root>/<task id>`, a fresh
 * `git clone` checked out at `commit` (detached), or a copy of `cwd` (symbolic links kept as links). A copy that
 * is complete carries no marker inside the tree; `prepared` reports whether one exists, so a retried task on the
 * same machine continues in the tree its session already changed.
 */
export function workspacePath(root: string, task: Pick<BatchTask, 'id'>): string {
  return join(root, task.id)
}

/**
 * Says why a tree may not be copied (an entry the read rules cover where it lives, see docs/fleet.md), or undefined.
 * `tree` is what would be copied; `source` where it is judged (a clone is judged by its source repository).
 */
export type CopyRefusal = (tree: string, source: string) => string | undefined

/**
 * Creates the task's workspace from its source (replacing a half-made one) and returns its path. With `refuse`, a
 * source holding a file the read rules cover is not copied (a clone of one is removed again): the promise rejects with
 * the refusal's sentence.
 */
export async function prepareWorkspace(root: string, task: BatchTask, refuse?: CopyRefusal): Promise<string> {
  const dir = workspacePath(root, task)
  await rm(dir, { recursive: true, force: true })
  await mkdir(root, { recursive: true })
  if (task.source.kind === 'dir') {
    const refused = refuse?.(task.source.path, task.source.path)
    if (refused) throw new Error(refused)
    await cp(task.source.path, dir, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false }).catch((error: unknown) => {
      throw new Error(`cannot copy ${task.source.kind === 'dir' ? task.source.path : ''} for task ${task.id}: ${(error as Error).message}.`)
    })
    return dir
  }
  const { repo, commit } = task.source
  await git(['clone', '--quiet', '--no-checkout', '--', repo, dir], root, `clone ${repo} for task ${task.id}`)
  await git(['checkout', '--quiet', '--detach', commit ?? 'HEAD', '--'], dir, `check out ${commit ?? 'HEAD'} of ${repo} for task ${task.id}`)
  // A repository on this machine is judged where it lives; one reached over the network holds nothing of this machine's.
  const refused = isAbsolute(repo) ? refuse?.(dir, repo) : undefined
  if (refused) {
    await rm(dir, { recursive: true, force: true })
    throw new Error(refused)
  }
  return dir
}

/** True when the task's workspace directory exists. */
export async function workspaceExists(root: string, task: Pick<BatchTask, 'id'>): Promise<boolean> {
  return (await stat(workspacePath(root, task)).catch(() => undefined))?.isDirectory() === true
}

/** Runs the task's `setup` command in its workspace with `sh -c` in `env` (already without secrets); rejects with one sentence when it fails. */
export function runSetup(dir: string, task: BatchTask, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', task.setup ?? 'true'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-400)))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(new Error(`the setup command of task ${task.id} could not start: ${error.message}.`))
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) return resolve()
      const last = stderr.trim().split('\n').at(-1)
      const how = signal ? `was killed (${signal}${signal === 'SIGKILL' ? ', past its time limit' : ''})` : `exited with code ${code}`
      reject(new Error(`the setup command of task ${task.id} ${how}${last ? `: ${last}` : ''}.`))
    })
  })
}

/**
 * Runs git without letting the repository run code: no hooks, no fsmonitor, no credential prompts. The repository
 * is named by the tasks file's owner, but its config and hooks are not.
 */
function git(args: string[], cwd: string, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'protocol.ext.allow=never', ...args], {
      cwd,
      env: childEnv(process.env, { set: { GIT_TERMINAL_PROMPT: '0' } }),
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', (error) => reject(new Error(`cannot ${what}: git could not start (${error.message}).`)))
    child.on('close', (code) => {
      if (code === 0) resolve()
      else reject(new Error(`cannot ${what}: ${stderr.trim().split('\n').at(-1) ?? `git exited with code ${code}`}.`))
    })
  })
}
