import { closeSync, openSync, writeSync } from 'node:fs'
import { constants } from 'node:os'
import { exitStatus, killGroup, spawnCommand, type CommandProcess } from './process-group.js'
import { spillPath } from './spill.js'
import type { ToolState } from './tool.js'

/** A background command. Its whole output goes to `logFile` (mode 0600); `readOffset` is what job_output has shown. */
export interface Job {
  id: string
  command: string
  pid: number | undefined
  logFile: string
  readOffset: number
  /** Set once the command has exited and its pipes closed. */
  exitCode?: number
  /** When it started and, once done, when it ended (epoch ms), for the user's `/jobs` view. */
  startedAt: number
  endedAt?: number
  done: Promise<void>
  child: CommandProcess
}

interface JobTable {
  next: number
  jobs: Map<string, Job>
}

const KEY = 'jobs'

export function jobTable(state: ToolState): JobTable {
  let table = state.extra.get(KEY) as JobTable | undefined
  if (!table) {
    table = { next: 1, jobs: new Map() }
    state.extra.set(KEY, table)
  }
  return table
}

/** Starts `command` in the background in its own process group, logging all output to a private file. */
export function startJob(state: ToolState, command: string, cwd: string): Job | { error: string } {
  const table = jobTable(state)
  const id = `job${table.next++}`
  const logFile = spillPath(state, id)
  let fd: number
  try {
    fd = openSync(logFile, 'w', 0o600)
  } catch (error) {
    return { error: `Error: could not create the job's log file: ${(error as Error).message}.` }
  }
  const child = spawnCommand(command, cwd, state)
  const write = (chunk: Buffer) => writeSync(fd, chunk)
  child.stdout.on('data', write)
  child.stderr.on('data', write)
  const job: Job = { id, command, pid: child.pid, logFile, readOffset: 0, child, done: Promise.resolve(), startedAt: Date.now() }
  job.done = new Promise<void>((resolve) => {
    let grace: NodeJS.Timeout | undefined
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (job.exitCode !== undefined) return
      clearTimeout(grace)
      job.exitCode = exitStatus(code, signal, constants.signals)
      job.endedAt = Date.now()
      closeSync(fd)
      resolve()
    }
    child.on('error', () => finish(127, null))
    // As in the foreground: a grandchild holding the pipes must not keep the job "running" after its command ended.
    child.on('exit', (code, signal) => {
      grace = setTimeout(() => {
        child.stdout.destroy()
        child.stderr.destroy()
        finish(code, signal)
      }, 250)
    })
    child.on('close', (code, signal) => finish(code, signal))
  })
  table.jobs.set(id, job)
  return job
}

/** This agent's background jobs in the order they started (the user's `/jobs`; the model has job_output). */
export function listJobs(state: ToolState): Job[] {
  return [...jobTable(state).jobs.values()]
}

/** Kills a job's whole process group and waits for it to be reported done. */
export async function stopJob(job: Job): Promise<void> {
  // Also after the command exited: children it left in its group are part of the job.
  await killGroup(job.pid)
  await job.done
}

/** Kills every running job: called when the agent closes. */
export async function stopAllJobs(state: ToolState): Promise<void> {
  const table = state.extra.get(KEY) as JobTable | undefined
  if (!table) return
  await Promise.all([...table.jobs.values()].map(stopJob))
}
