import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import type { Readable } from 'node:stream'
import { sandboxIn } from '../sandbox/attach.js'
import type { SandboxedCommand } from '../sandbox/sandbox.js'
import { BUILTIN_SECRET_ENV, childEnv } from './child-env.js'
import type { ToolState } from './tool.js'

/** Always withheld from commands the model runs: Rein's and the store's credentials. Settings may name more (`secretEnv`). */
export const ALWAYS_SECRET = BUILTIN_SECRET_ENV

/** The environment a model-run command sees: ours, less every secret (`childEnv`), with pagers and colours turned off. */
export function commandEnv(state: ToolState): NodeJS.ProcessEnv {
  return childEnv(process.env, { secretEnv: [...state.secretEnv], passEnv: [...(state.passEnv ?? [])], set: { NO_COLOR: '1', PAGER: 'cat', GIT_PAGER: 'cat' } })
}

export type CommandProcess = ChildProcessByStdio<null, Readable, Readable>

/**
 * Starts `bash -c command` as the leader of its own process group (`detached`), so the command and everything it
 * starts can be signalled together by `killGroup(child.pid)`. stdin is closed: a command waiting for input ends.
 */
export function spawnCommand(command: string, cwd: string, state: ToolState): CommandProcess {
  return startCommand(command, cwd, state).child
}

/**
 * `spawnCommand`, saying whether the command runs in the session's sandbox (docs/sandbox.md): when one is attached
 * and the command is not excluded, the process is bwrap, and `sandboxed` reports what the sandbox refused.
 */
export function startCommand(command: string, cwd: string, state: ToolState): { child: CommandProcess; sandboxed?: SandboxedCommand } {
  const sandbox = sandboxIn(state.extra)
  if (sandbox?.enter(command)) {
    const sandboxed = sandbox.spawn(command, { cwd, env: commandEnv(state) })
    return { child: sandboxed.child, sandboxed }
  }
  const child = spawn('bash', ['-c', command], {
    cwd,
    env: commandEnv(state),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return { child }
}

/**
 * Whether any process of the group is still running. On Linux /proc tells zombies apart (a member whose parent died
 * waits there until someone reaps it, and signals cannot touch it); elsewhere signal 0 answers, zombies included.
 */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
  } catch {
    // ESRCH: no process is left in the group (EPERM cannot happen for a group we started).
    return false
  }
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return true // No /proc (macOS): trust the signal.
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // The process ended while we looked.
    }
    // Fields after the parenthesized command name: state, ppid, pgrp, …
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true
  }
  return false
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Ends a process group: SIGTERM, up to `graceMs` for it to go, then SIGKILL. Resolves once the group is gone or,
 * if members linger as zombies nobody reaps, after a bounded wait; it never throws.
 */
export async function killGroup(pgid: number | undefined, graceMs = 1000): Promise<void> {
  if (pgid === undefined || !groupAlive(pgid)) return
  signalGroup(pgid, 'SIGTERM')
  for (let waited = 0; waited < graceMs && groupAlive(pgid); waited += 50) await sleep(50)
  if (!groupAlive(pgid)) return
  signalGroup(pgid, 'SIGKILL')
  for (let waited = 0; waited < 500 && groupAlive(pgid); waited += 25) await sleep(25)
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal)
  } catch {
    // The group ended between the check and the signal: nothing left to kill.
  }
}

/** The conventional exit status: the code, or 128 + the signal number for a process killed by a signal. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null, signals: Record<string, number>): number {
  if (code !== null) return code
  return signal ? 128 + (signals[signal] ?? 0) : -1
}
