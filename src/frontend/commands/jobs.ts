import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs'
import { listJobs, stopJob, type Job } from '../../tools/job-table.js'
import { plainLine, plainText } from '../render/plain.js'
import { formatDuration } from '../render/tail.js'
import type { BuiltinCommand, CommandContext } from './types.js'

/** How much of a job's log `/jobs <id>` shows: its last lines, read from at most this many bytes at the end. */
const TAIL_LINES = 40
const TAIL_BYTES = 16 * 1024

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

function logSize(job: Job): number {
  try {
    return statSync(job.logFile).size
  } catch {
    // The spill directory was removed under the job: it has no output to show.
    return 0
  }
}

function state(job: Job): string {
  return job.exitCode === undefined ? 'running' : `exited ${job.exitCode}`
}

/** `running · 2 m 05 s · 12 KB`: what a job's row says after its command. */
function facts(job: Job): string {
  return `${state(job)} · ${formatDuration((job.endedAt ?? Date.now()) - job.startedAt)} · ${size(logSize(job))}`
}

/**
 * The end of a job's output as plain text (no escape sequence reaches a screen), with what was left out. Read from
 * the log file, so the model's own read position (`job_output`) does not move.
 */
export function outputTail(job: Job): string {
  let fd: number
  try {
    fd = openSync(job.logFile, 'r')
  } catch {
    return '(no output)'
  }
  try {
    const total = fstatSync(fd).size
    if (total === 0) return '(no output yet)'
    const start = Math.max(0, total - TAIL_BYTES)
    const buffer = Buffer.alloc(total - start)
    readSync(fd, buffer, 0, buffer.length, start)
    let lines = plainText(buffer.toString('utf8')).replace(/\n$/, '').split('\n')
    if (start > 0) lines = lines.slice(1)
    const cut = lines.length > TAIL_LINES
    const shown = lines.slice(-TAIL_LINES)
    return cut || start > 0 ? [`[earlier output not shown; all ${size(total)} are in ${job.logFile}]`, ...shown].join('\n') : shown.join('\n')
  } finally {
    closeSync(fd)
  }
}

function jobsOf(ctx: CommandContext): Job[] | undefined {
  const state = ctx.agent.toolState
  return state ? listJobs(state) : undefined
}

function find(ctx: CommandContext, id: string): Job | undefined {
  const job = jobsOf(ctx)?.find((j) => j.id === id)
  if (!job) ctx.reply(`There is no background job ${plainLine(id, 40)}; /jobs lists them.`, { level: 'warning' })
  return job
}

function showOutput(ctx: CommandContext, job: Job): void {
  ctx.reply(`$ ${plainLine(job.command, 300)}\n${outputTail(job)}`, { title: `${job.id}: ${facts(job)}` })
}

async function kill(ctx: CommandContext, job: Job): Promise<void> {
  if (job.exitCode !== undefined) return ctx.reply(`${job.id} had already exited (exit code ${job.exitCode}).`)
  // The job table's own stop: the whole process group, then its pipes closed.
  await stopJob(job)
  ctx.reply(`Stopped ${job.id} (exit code ${job.exitCode}).`)
}

/**
 * `/jobs`: the background jobs the model started (`bash` with `run_in_background`). Alone it lists them — where the
 * surface can pick, as a picker whose choice shows that job's output and offers to stop it; `/jobs <id>` shows a
 * job's output tail; `/jobs kill <id>` stops it. Not in `rein -p`: a one-shot process starts with no jobs.
 */
export const jobsCommand: BuiltinCommand = {
  name: 'jobs',
  argument: { hint: '[id | kill <id>]' },
  help: "List the background jobs, show one's output, or stop one",
  surfaces: ['tui', 'acp', 'rpc', 'web'],
  async run(ctx, arg) {
    const jobs = jobsOf(ctx)
    if (!jobs) return ctx.reply('This surface cannot see the background jobs.', { level: 'warning' })
    const words = arg.split(/\s+/).filter(Boolean)
    if (words[0] === 'kill') {
      if (words.length !== 2) return ctx.reply('Name one job to stop: /jobs kill <id>.', { level: 'warning' })
      const job = find(ctx, words[1])
      return job ? kill(ctx, job) : undefined
    }
    if (words.length > 1) return ctx.reply('/jobs takes a job id, or kill and a job id.', { level: 'warning' })
    if (words.length === 1) {
      const job = find(ctx, words[0])
      return job ? showOutput(ctx, job) : undefined
    }
    if (!jobs.length) return ctx.reply('No background jobs have started in this session.')
    const newest = jobs.slice().reverse()
    const pick = ctx.host.pick
    if (!pick) {
      const rows = newest.map((j) => `${j.id.padEnd(7)} ${facts(j).padEnd(32)} ${plainLine(j.command, 100)}`)
      return ctx.reply([...rows, '', '/jobs <id> shows its output; /jobs kill <id> stops it.'].join('\n'), { title: 'Background jobs' })
    }
    pick(
      'Background jobs',
      newest.map((j) => ({ value: j.id, label: `${j.id}  ${plainLine(j.command, 80)}`, detail: facts(j) })),
      (id) => {
        const job = jobs.find((j) => j.id === id)
        if (!job) return
        showOutput(ctx, job)
        if (job.exitCode !== undefined) return
        pick(`${job.id}: ${plainLine(job.command, 60)}`, [
          { value: 'keep', label: 'Leave it running' },
          { value: 'kill', label: `Stop ${job.id}` },
        ], (choice) => {
          if (choice === 'kill') kill(ctx, job).catch((error: unknown) => ctx.reply(`Could not stop ${job.id}: ${(error as Error).message}`, { level: 'error' }))
        })
      },
    )
  },
}
