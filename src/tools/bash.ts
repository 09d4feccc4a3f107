import { constants } from 'node:os'
import { StringDecoder } from 'node:string_decoder'
import { z } from 'zod'
import { sandboxIn } from '../sandbox/attach.js'
import { startJob } from './job-table.js'
import { OutputBuffer } from './output-buffer.js'
import { exitStatus, killGroup, startCommand } from './process-group.js'
import { errorOutput, type Tool, type ToolOutput } from './tool.js'
import { metaNumber, metaString, stringArg } from './display-args.js'

export const DEFAULT_TIMEOUT_MS = 120_000
export const MAX_TIMEOUT_MS = 600_000
/**
 * How long to keep reading after the command itself exited. A background child (`server &`) inherits the pipes and
 * may hold them open for ever; the result must not wait for it.
 */
const PIPE_GRACE_MS = 250

const schema = z.object({
  command: z.string(),
  description: z.string().optional(),
  timeout: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe(`ms (default ${DEFAULT_TIMEOUT_MS})`),
  run_in_background: z.boolean().optional().describe('Run as a job; see job_output'),
})

const description =
  'Run a shell command in the working directory; returns exit code and output tail.'

type Args = z.infer<typeof schema>

export const bashTool: Tool<Args> = {
  name: 'bash',
  description,
  schema,
  readOnly: false,
  kind: 'execute',
  category: 'exec',
  peerNames: { claudeCode: 'Bash', codex: 'Bash' },
  target: { kind: 'command', argument: 'command' },
  display: {
    subject: (args) => stringArg(args, 'command'),
    summary: (result) => {
      const job = metaString(result, 'jobId')
      if (job !== undefined) return `started job ${job}`
      const stopped = metaString(result, 'stopped')
      if (stopped === 'cancel') return 'cancelled'
      if (stopped === 'timeout') return 'timed out'
      const code = metaNumber(result, 'exitCode')
      return code === undefined ? undefined : `exit code ${code}`
    },
    output: 'tail',
  },
  async run(args, ctx) {
    if (args.run_in_background) {
      const sandboxed = sandboxIn(ctx.state.extra)?.confines(args.command) === true
      const job = startJob(ctx.state, args.command, ctx.cwd)
      if ('error' in job) return fail(job.error)
      return {
        content: [{ type: 'text', text: `Started ${job.id} (pid ${job.pid}). Read its output with job_output, stop it with job_kill.` }],
        meta: { jobId: job.id, pid: job.pid ?? null, ...(sandboxed ? { sandboxed: true } : {}) },
      }
    }
    return runForeground(args.command, args.timeout ?? DEFAULT_TIMEOUT_MS, ctx)
  },
}

const fail = errorOutput

async function runForeground(command: string, timeoutMs: number, ctx: Parameters<Tool['run']>[1]): Promise<ToolOutput> {
  const started = Date.now()
  const output = new OutputBuffer(ctx.state, `bash-${ctx.callId}`)
  const { child, sandboxed } = startCommand(command, ctx.cwd, ctx.state)
  let stopped: 'timeout' | 'cancel' | undefined
  let killing: Promise<void> | undefined
  const stop = (why: 'timeout' | 'cancel') => {
    stopped ??= why
    killing ??= killGroup(child.pid)
  }
  const timer = setTimeout(() => stop('timeout'), timeoutMs)
  const onAbort = () => stop('cancel')
  ctx.signal.addEventListener('abort', onAbort)
  if (ctx.signal.aborted) onAbort()

  // One decoder per stream: a character whose bytes arrive in two chunks is held until it is whole, not shown as U+FFFD.
  const progressOf = (stream: NodeJS.ReadableStream) => {
    const decoder = new StringDecoder('utf8')
    stream.on('data', (chunk: Buffer) => {
      output.push(chunk)
      const text = decoder.write(chunk)
      if (text) ctx.progress?.(text)
    })
    stream.on('close', () => {
      const rest = decoder.end()
      if (rest) ctx.progress?.(rest)
    })
  }
  progressOf(child.stdout)
  progressOf(child.stderr)

  const result = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
    let grace: NodeJS.Timeout | undefined
    child.on('error', (error) => resolve({ code: null, signal: null, error }))
    child.on('exit', (code, signal) => {
      exit = { code, signal }
      grace = setTimeout(() => {
        child.stdout.destroy()
        child.stderr.destroy()
        resolve(exit!)
      }, PIPE_GRACE_MS)
    })
    child.on('close', (code, signal) => {
      clearTimeout(grace)
      resolve(exit ?? { code, signal })
    })
  })
  clearTimeout(timer)
  ctx.signal.removeEventListener('abort', onAbort)
  await killing
  output.close()
  if (result.error) return fail(`Error: could not start bash: ${result.error.message}.`)

  const status = exitStatus(result.code, result.signal, constants.signals)
  const tail = output.tail()
  const lines: string[] = []
  if (tail.cut) {
    lines.push(`[showing the last ${Buffer.byteLength(tail.text)} of ${output.total} bytes; full output in ${output.file}]`)
  }
  if (tail.text) lines.push(tail.text.replace(/\n$/, ''))
  if (stopped === 'timeout') lines.push(`[timed out after ${timeoutMs} ms; the command and its children were killed]`)
  if (stopped === 'cancel') lines.push('[cancelled; the command and its children were killed]')
  const sandbox = sandboxed?.report(tail.text)
  if (sandbox?.note) lines.push(sandbox.note)
  lines.push(`[exit code: ${status}]`)
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    isError: stopped !== undefined,
    meta: {
      exitCode: status,
      durationMs: Date.now() - started,
      ...(stopped ? { stopped } : {}),
      ...(output.file ? { outputFile: output.file } : {}),
      ...(sandboxed ? { sandboxed: true, ...(sandbox?.refusals.length ? { refusedHosts: sandbox.refusals.map((r) => r.host) } : {}) } : {}),
    },
  }
}
