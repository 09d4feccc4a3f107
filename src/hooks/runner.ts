import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'

/** What one hook process did. Exactly one of: it exited (`exitCode`), was killed (`signal`), timed out, or never started. */
export interface HookProcessResult {
  exitCode: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  timedOut: boolean
  /** Set when the process could not be started at all (missing shell, missing working directory). */
  spawnError?: string
  durationMs: number
}

export interface HookProcessOptions {
  command: string
  cwd: string
  env: NodeJS.ProcessEnv
  /** Written to the process's stdin, which is then closed. */
  input: string
  /** Wall-clock limit in ms; the whole process group is killed when it passes. */
  timeoutMs: number
}

/** Output kept per stream. Hooks that print more are cut here; JSON output is far smaller in practice. */
const OUTPUT_CAP = 1024 * 1024

/**
 * How long to wait for a hook's output pipes to close after it exited. A hook that leaves a background child holding
 * its stdout (`notify-send … &`) must not hold the turn; the child is left alone, only its output is no longer read.
 */
const DRAIN_AFTER_EXIT_MS = 500

/** bash, as both peers run hooks with it; `sh` where there is no bash. */
const SHELL = ['/bin/bash', '/usr/bin/bash'].find((path) => existsSync(path)) ?? '/bin/sh'

/**
 * Runs one hook command in its own process group. Never rejects and never outlives `timeoutMs` by more than the
 * time to deliver SIGKILL: a hook that hangs, crashes or floods its output yields a result the caller reads as a
 * non-blocking failure.
 */
export function runHookCommand(options: HookProcessOptions): Promise<HookProcessResult> {
  const started = performance.now()
  return new Promise((resolvePromise) => {
    const stdout: Buffer[] = []
    const stderr: Buffer[] = []
    const kept = { stdout: 0, stderr: 0 }
    let settled = false
    let exitCode: number | null = null
    let signal: NodeJS.Signals | null = null
    let timedOut = false
    let drainTimer: NodeJS.Timeout | undefined

    const child = spawn(SHELL, ['-c', options.command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    })

    const finish = (spawnError?: string): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(drainTimer)
      child.stdout.destroy()
      child.stderr.destroy()
      resolvePromise({
        exitCode,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        timedOut,
        spawnError,
        durationMs: Math.round(performance.now() - started),
      })
    }

    const collect = (into: Buffer[], key: 'stdout' | 'stderr') => (chunk: Buffer) => {
      const room = OUTPUT_CAP - kept[key]
      if (room <= 0) return
      const piece = chunk.length > room ? chunk.subarray(0, room) : chunk
      into.push(piece)
      kept[key] += piece.length
    }
    child.stdout.on('data', collect(stdout, 'stdout'))
    child.stderr.on('data', collect(stderr, 'stderr'))

    const timer = setTimeout(() => {
      timedOut = true
      killGroup(child.pid)
      finish()
    }, options.timeoutMs)

    child.on('error', (error) => finish(error.message))
    child.on('exit', (code, killedBy) => {
      exitCode = code
      signal = killedBy
      drainTimer = setTimeout(() => finish(), DRAIN_AFTER_EXIT_MS)
    })
    child.on('close', () => finish())

    // A hook that never reads stdin closes the pipe early; the EPIPE that follows is expected and harmless.
    child.stdin.on('error', () => undefined)
    child.stdin.end(options.input)
  })
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // The group is already gone: the hook exited between the timer firing and the kill.
  }
}
