import { open } from 'node:fs/promises'
import { z } from 'zod'
import { jobTable, stopJob, type Job } from './job-table.js'
import { OUTPUT_TAIL_BYTES } from './output-buffer.js'
import type { Tool, ToolOutput } from './tool.js'
import { stringArg } from './display-args.js'

const MAX_WAIT_MS = 600_000

const outputSchema = z.object({
  id: z.string(),
  wait: z.number().int().min(0).max(MAX_WAIT_MS).optional().describe('ms to wait for it to exit'),
})

export const jobOutputTool: Tool<z.infer<typeof outputSchema>> = {
  name: 'job_output',
  description: 'New output of a background job, and whether it exited.',
  schema: outputSchema,
  readOnly: true,
  kind: 'execute',
  category: 'read',
  peerNames: { claudeCode: 'BashOutput' },
  display: {
    verb: 'Output of job',
    subject: (args) => stringArg(args, 'id'),
    output: 'tail',
  },
  async run(args, ctx) {
    const job = jobTable(ctx.state).jobs.get(args.id)
    if (!job) return unknownJob(args.id, ctx.state)
    if (args.wait && job.exitCode === undefined) {
      let timer: NodeJS.Timeout | undefined
      let onAbort: (() => void) | undefined
      await Promise.race([
        job.done,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, args.wait)
          onAbort = () => resolve()
          ctx.signal.addEventListener('abort', onAbort)
        }),
      ])
      clearTimeout(timer)
      if (onAbort) ctx.signal.removeEventListener('abort', onAbort)
    }
    const fresh = await readNew(job)
    const status = job.exitCode === undefined ? `[${job.id} is running]` : `[${job.id} exited; exit code: ${job.exitCode}]`
    const body = fresh.text === '' ? '(no new output)' : fresh.text.replace(/\n$/, '')
    const note = fresh.skipped > 0 ? `[${fresh.skipped} earlier bytes skipped; full output in ${job.logFile}]\n` : ''
    return {
      content: [{ type: 'text', text: `${note}${body}\n${status}` }],
      meta: { jobId: job.id, running: job.exitCode === undefined, ...(job.exitCode !== undefined ? { exitCode: job.exitCode } : {}) },
    }
  },
}

const killSchema = z.object({ id: z.string() })

export const jobKillTool: Tool<z.infer<typeof killSchema>> = {
  name: 'job_kill',
  description: 'Stop a background job and its processes.',
  schema: killSchema,
  readOnly: false,
  kind: 'execute',
  category: 'free',
  peerNames: { claudeCode: 'KillShell' },
  display: {
    verb: 'Stop job',
    subject: (args) => stringArg(args, 'id'),
  },
  async run(args, ctx) {
    const job = jobTable(ctx.state).jobs.get(args.id)
    if (!job) return unknownJob(args.id, ctx.state)
    const wasRunning = job.exitCode === undefined
    await stopJob(job)
    const text = wasRunning ? `Killed ${job.id}; exit code: ${job.exitCode}.` : `${job.id} had already exited (exit code: ${job.exitCode}).`
    return { content: [{ type: 'text', text }], meta: { jobId: job.id, exitCode: job.exitCode ?? null } }
  },
}

function unknownJob(id: string, state: Parameters<typeof jobTable>[0]): ToolOutput {
  const known = [...jobTable(state).jobs.keys()]
  const hint = known.length ? `known jobs: ${known.join(', ')}` : 'no jobs have been started'
  return { content: [{ type: 'text', text: `Error: there is no job ${id} (${hint}).` }], isError: true }
}

/** The output written since the last call, keeping only its last `OUTPUT_TAIL_BYTES` bytes for the model. */
async function readNew(job: Job): Promise<{ text: string; skipped: number }> {
  const handle = await open(job.logFile, 'r')
  try {
    const size = (await handle.stat()).size
    const available = size - job.readOffset
    const skipped = Math.max(0, available - OUTPUT_TAIL_BYTES)
    const length = available - skipped
    const buffer = Buffer.alloc(length)
    await handle.read(buffer, 0, length, job.readOffset + skipped)
    job.readOffset = size
    return { text: buffer.toString('utf8'), skipped }
  } finally {
    await handle.close()
  }
}
