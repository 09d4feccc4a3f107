import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { openAgentWithContext, type OpenAgentOptions, type OpenedAgent } from '../../runtime/open.js'
import { CurrentSession } from '../../frontend/hosting/current-session.js'
import type { PermissionAnswer, PermissionRequest } from '../../agent/types.js'
import { PERMISSION_MODES } from '../../agent/types.js'
import { onExitSignals } from '../../frontend/exit-signals.js'
import { commandsAndSkills } from '../../frontend/commands/custom.js'
import { runCatalogCommand } from '../../frontend/commands/one-shot.js'
import { listCommands } from '../../frontend/commands/run.js'
import { LineLimiter, maxLineBytes, tooLongMessage, type LinePiece } from '../../frontend/line-limit.js'
import { REWIND_COMMAND, UNDO_REWIND_COMMAND, type RewindOutcome } from '../../checkpoints/rewind-types.js'
import type { JsonValue } from '../../session/events.js'
import { promptRoots } from '../../plugins/roots.js'

/** A command's structured arguments without the fields the client left out. */
function definedOnly(fields: Record<string, JsonValue | undefined>): { [key: string]: JsonValue } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as { [key: string]: JsonValue }
}

/**
 * `rein rpc`: newline-delimited JSON over stdio. Every command line gets one `response` line with `ok`; events
 * stream as `event` lines. The protocol is documented in docs/rpc.md.
 */
const content = z.union([
  z.string(),
  z.array(
    z.union([
      z.object({ type: z.literal('text'), text: z.string() }),
      z.object({ type: z.literal('image'), mimeType: z.string(), data: z.string() }),
    ]),
  ),
])
const command = z.discriminatedUnion('type', [
  z.object({ id: z.unknown().optional(), type: z.literal('prompt'), message: content, mode: z.enum(['steer', 'followUp']).optional() }),
  // `session` names a running subagent (its session id or a unique prefix) to steer instead of this agent.
  z.object({ id: z.unknown().optional(), type: z.literal('steer'), message: content, session: z.string().min(1).optional() }),
  z.object({ id: z.unknown().optional(), type: z.literal('follow_up'), message: content }),
  z.object({ id: z.unknown().optional(), type: z.literal('inject'), message: content }),
  z.object({ id: z.unknown().optional(), type: z.literal('cancel') }),
  z.object({ id: z.unknown().optional(), type: z.literal('get_state') }),
  z.object({ id: z.unknown().optional(), type: z.literal('get_messages') }),
  z.object({ id: z.unknown().optional(), type: z.literal('get_commands') }),
  // A built-in from the command catalog (src/frontend/commands): `/name args` without the slash.
  z.object({ id: z.unknown().optional(), type: z.literal('run_command'), name: z.string().min(1).max(100), args: z.string().max(1_000_000).optional() }),
  z.object({ id: z.unknown().optional(), type: z.literal('fork'), seq: z.number().int().nonnegative().optional() }),
  z.object({ id: z.unknown().optional(), type: z.literal('set_permission_mode'), mode: z.enum(PERMISSION_MODES as [string, ...string[]]) }),
  z.object({
    id: z.unknown().optional(),
    type: z.literal('permission_response'),
    requestId: z.string(),
    outcome: z.enum(['allow-once', 'allow-always', 'deny']),
    note: z.string().optional(),
  }),
  z.object({ id: z.unknown().optional(), type: z.literal('compact'), focus: z.string().optional() }),
  // The `RewindRequest` fields (src/checkpoints/rewind-types.ts); `undo` undoes the latest rewind of the code instead.
  z.object({
    id: z.unknown().optional(),
    type: z.literal('rewind'),
    turn: z.number().int().min(1).optional(),
    code: z.boolean().optional(),
    conversation: z.boolean().optional(),
    conflicts: z.enum(['ask', 'overwrite', 'keep']).optional(),
    dryRun: z.boolean().optional(),
    undo: z.boolean().optional(),
  }),
  z.object({ id: z.unknown().optional(), type: z.literal('shutdown') }),
])
type RpcCommand = z.infer<typeof command>

export interface RpcOptions extends OpenAgentOptions {
  input?: NodeJS.ReadableStream
  output?: NodeJS.WritableStream
  /** Send permission requests to the client instead of treating ask as deny. */
  askPermissions?: boolean
  /** Longest accepted command line in bytes; default `REIN_MAX_LINE_BYTES`, else 64 MiB. */
  maxLineBytes?: number
}

/** The input's lines, each at most `limit` bytes (longer ones come as `tooLong`), until it ends or `stop` aborts. */
async function* boundedLines(input: NodeJS.ReadableStream, limit: number, stop: AbortSignal): AsyncGenerator<LinePiece> {
  const limiter = new LineLimiter(limit)
  const ended = new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }))
  const iterator = (input as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]()
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), ended.then(() => null)])
      if (!next || next.done) break
      yield* limiter.push(typeof next.value === 'string' ? Buffer.from(next.value) : next.value)
    }
    if (!stop.aborted) yield* limiter.end()
  } finally {
    // Stops reading and releases the input, so the process can exit after a signal while the client keeps its end open.
    void iterator.return?.()
    const stream = input as NodeJS.ReadableStream & { destroy?: () => void }
    stream.pause()
    stream.destroy?.()
  }
}

export async function runRpc(options: RpcOptions): Promise<number> {
  const output = options.output ?? process.stdout
  const send = (value: unknown): void => {
    output.write(`${JSON.stringify(value)}\n`)
  }
  const pendingAsks = new Map<string, (answer: PermissionAnswer) => void>()
  const opening = { ...options, onProblem: (message: string) => send({ type: 'event', event: { type: 'notice', level: 'warning', message } }) }
  // The one session this connection drives, and its moves to a fork (src/frontend/hosting).
  const current = new CurrentSession(await openAgentWithContext(opening), options, attach, openAgentWithContext)

  function attach(o: OpenedAgent): () => void {
    if (options.askPermissions) {
      o.agent.permissionAsker = (request: PermissionRequest, signal: AbortSignal) =>
        new Promise<PermissionAnswer>((resolve) => {
          const requestId = randomUUID()
          pendingAsks.set(requestId, resolve)
          signal.addEventListener('abort', () => {
            pendingAsks.delete(requestId)
            resolve({ outcome: 'deny' })
          })
          send({
            type: 'permission_request',
            requestId,
            call: request.call,
            reason: request.reason,
            suggestedRule: request.suggestedRule,
            ...(request.subagent ? { subagent: request.subagent } : {}),
          })
        })
    }
    return o.agent.subscribe((event) => send({ type: 'event', event }))
  }

  const respond = (cmd: { id?: unknown; type: string }, data?: unknown): void =>
    send({ type: 'response', id: cmd.id ?? null, command: cmd.type, ok: true, ...(data !== undefined ? { data } : {}) })
  const reject = (id: unknown, commandName: string | null, error: string): void =>
    send({ type: 'response', id: id ?? null, command: commandName, ok: false, error })

  async function handle(cmd: RpcCommand): Promise<boolean> {
    const opened = current.opened
    const agent = opened.agent
    switch (cmd.type) {
      case 'prompt': {
        if (agent.busy && !cmd.mode) {
          reject(cmd.id, cmd.type, 'The agent is busy: send the prompt with "mode": "steer" or "followUp".')
          return true
        }
        const id = cmd.mode === 'steer' ? agent.steer(cmd.message) : agent.followUp(cmd.message)
        respond(cmd, { messageId: id })
        return true
      }
      case 'steer': {
        if (!cmd.session) {
          respond(cmd, { messageId: agent.steer(cmd.message) })
          return true
        }
        const children = [...opened.subagents.running.entries()].filter(([id]) => id.startsWith(cmd.session as string))
        if (children.length !== 1) {
          reject(cmd.id, cmd.type, children.length ? `More than one running subagent starts with ${cmd.session}; give more of its id.` : `No subagent ${cmd.session} is running; it may have finished.`)
          return true
        }
        respond(cmd, { messageId: children[0][1].steer(cmd.message, { kind: 'rpc' }) })
        return true
      }
      case 'follow_up':
        respond(cmd, { messageId: agent.followUp(cmd.message) })
        return true
      case 'inject':
        respond(cmd, { messageId: agent.inject(cmd.message, { kind: 'rpc' }) })
        return true
      case 'cancel':
        agent.cancel()
        respond(cmd)
        return true
      case 'get_state':
        respond(cmd, {
          sessionId: agent.session.id,
          cwd: agent.cwd,
          busy: agent.busy,
          model: agent.config.model,
          effort: agent.config.effort,
          permissionMode: agent.permissionMode,
          queued: agent.queued.map((q) => ({ id: q.id, verb: q.verb })),
          events: agent.session.length,
        })
        return true
      case 'get_messages':
        respond(cmd, { messages: agent.session.messages() })
        return true
      case 'get_commands':
        respond(cmd, { builtins: listCommands('rpc', agent.cwd), ...commandsAndSkills(agent.cwd, process.env, promptRoots(opened.plugins)) })
        return true
      case 'run_command': {
        const outcome = await runCatalogCommand(agent, 'rpc', cmd.name, cmd.args ?? '', options.home)
        if ('refused' in outcome) reject(cmd.id, cmd.type, outcome.refused)
        else respond(cmd, outcome)
        return true
      }
      case 'set_permission_mode':
        agent.setPermissionMode(cmd.mode as (typeof PERMISSION_MODES)[number])
        respond(cmd)
        return true
      case 'fork': {
        if (agent.busy) {
          reject(cmd.id, cmd.type, 'Cannot fork while a turn runs; cancel it or wait for it to end.')
          return true
        }
        const from = agent.session.id
        const forked = await current.fork(from, cmd.seq, 'fork')
        respond(cmd, { sessionId: forked.agent.session.id, parent: from })
        return true
      }
      case 'permission_response': {
        const resolve = pendingAsks.get(cmd.requestId)
        if (!resolve) {
          reject(cmd.id, cmd.type, `No permission request ${cmd.requestId} is waiting.`)
          return true
        }
        pendingAsks.delete(cmd.requestId)
        resolve(cmd.outcome === 'deny' ? { outcome: 'deny', note: cmd.note } : { outcome: cmd.outcome })
        respond(cmd)
        return true
      }
      case 'compact': {
        if (agent.busy) {
          reject(cmd.id, cmd.type, 'Cannot compact while a turn runs; cancel it or wait for it to end.')
          return true
        }
        respond(cmd, await agent.compact(cmd.focus))
        return true
      }
      case 'rewind': {
        if (agent.busy) {
          reject(cmd.id, cmd.type, 'Cannot rewind while a turn runs; cancel it or wait for it to end.')
          return true
        }
        // Not awaited: a conflict question arrives as a permission_request, and its answer is a later line.
        void rewind(agent, cmd).then(
          (data) => respond(cmd, data),
          (error: unknown) => reject(cmd.id, cmd.type, error instanceof Error ? error.message : String(error)),
        )
        return true
      }
      case 'shutdown':
        respond(cmd)
        return false
    }
  }

  /** Runs a rewind (or its undo); when it forked the conversation, this connection continues in the fork. */
  async function rewind(agent: OpenedAgent['agent'], cmd: Extract<RpcCommand, { type: 'rewind' }>): Promise<unknown> {
    const { id: _id, type: _type, undo, ...request } = cmd
    const result = undo
      ? await agent.runCommand(UNDO_REWIND_COMMAND, { args: definedOnly({ conflicts: request.conflicts, dryRun: request.dryRun }) })
      : await agent.runCommand(REWIND_COMMAND, { args: definedOnly(request) })
    const fork = (result.data as RewindOutcome | undefined)?.fork
    if (fork && result.outcome === 'rewound') await current.resume(fork.id, 'rewind')
    return { ...result, sessionId: current.opened.agent.session.id }
  }

  const input = options.input ?? process.stdin
  const limit = options.maxLineBytes ?? maxLineBytes()
  const stop = new AbortController()
  // A signal ends the run like Ctrl-C: the turn ends interrupted, reading stops, and the agent closes below.
  const signals = onExitSignals(() => {
    current.opened.agent.interrupt()
    stop.abort()
  })
  let queue = Promise.resolve(true)
  let running = true
  for await (const piece of boundedLines(input, limit, stop.signal)) {
    if ('tooLong' in piece) {
      reject(null, null, tooLongMessage(piece.tooLong, limit))
      continue
    }
    const line = piece.line.toString('utf8').replace(/\r$/, '')
    if (!line.trim()) continue
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      reject(null, null, 'That line is not valid JSON; send one JSON object per line.')
      continue
    }
    const checked = command.safeParse(parsed)
    if (!checked.success) {
      const raw = parsed as { id?: unknown; type?: unknown }
      const name = typeof raw?.type === 'string' ? raw.type : null
      reject(raw?.id, name, `Invalid command${name ? ` "${name}"` : ''}: ${checked.error.issues.map((i) => `${i.path.join('.') || 'command'} ${i.message}`).join('; ')}.`)
      continue
    }
    queue = queue.then(async (go) => {
      if (!go) return false
      try {
        return await handle(checked.data)
      } catch (error) {
        reject(checked.data.id, checked.data.type, error instanceof Error ? error.message : String(error))
        return true
      }
    })
    running = await queue
    if (!running) break
  }
  signals.dispose()
  await current.close(signals.received ? 'signal' : 'exit')
  return signals.code ?? 0
}
