import { randomUUID } from 'node:crypto'
import type { InputBlock, ToolCallBlock } from '../llm/messages.js'
import type { JsonValue, Source } from '../session/events.js'
import type { Session } from '../session/session.js'
import { errorOutput, toolFacts, type AnyTool, type ToolContext, type ToolOutput, type ToolState } from '../tools/tool.js'
import type { ToolCallInfo } from './extensions.js'
import type { Listeners } from './listeners.js'
import type { LiveEvent, PermissionAnswer, PermissionAsker, PermissionRequest } from './types.js'

/** What the runner needs from the agent for one step's tool calls. */
export interface ToolStep {
  turn: number
  step: number
  session: Session
  tools: ReadonlyMap<string, AnyTool>
  state: ToolState
  listeners: Listeners
  signal: AbortSignal
  /** The front end's permission prompt, when one is attached. */
  asker: PermissionAsker | undefined
  /** The sentence a model reads when a call needs permission and no front end can ask; a generic one when absent. */
  permissionNeeded?: (call: ToolCallInfo, reason?: string) => string
  emit: (event: LiveEvent) => void
  /** How many read-only calls may run at once. */
  concurrency: number
}

/** A call after validation and permission: either ready to run, or already answered. */
interface Prepared {
  block: ToolCallBlock
  call: ToolCallInfo
  tool?: AnyTool
  args?: unknown
  answer?: ToolOutput
  rewrittenBy?: string
}

const errorResult = errorOutput

const defaultPermissionNeeded = (call: ToolCallInfo): string =>
  `Error: ${call.name} needs permission and no one is attached to grant it. The user can allow it with --permission-mode or --allow.`

/** Parses raw argument text. An empty string counts as `{}`: models send it for tools without parameters. */
export function parseArguments(raw: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (raw.trim() === '') return { ok: true, value: {} }
  try {
    return { ok: true, value: JSON.parse(raw) }
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) }
  }
}

/** Checks arguments already parsed from the raw text (a parse failure included) against the tool's schema. */
function validate(tool: AnyTool, parsed: ReturnType<typeof parseArguments>): { args: unknown } | { error: string } {
  if (!parsed.ok) {
    return { error: `Error: the arguments for ${tool.name} are not valid JSON (${parsed.message}). Send one JSON object that matches the tool's schema.` }
  }
  const checked = tool.schema.safeParse(parsed.value)
  if (!checked.success) {
    const problems = checked.error.issues
      .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
      .join('; ')
    return { error: `Error: invalid arguments for ${tool.name}: ${problems}. Fix them and call the tool again.` }
  }
  return { args: checked.data }
}

/**
 * Runs one step's tool calls: validate, ask the `preTool` listeners (and the front end, when they say ask), log the
 * call, flush, run, let `postTool` listeners see the result, log the result. Consecutive read-only calls run
 * together in a bounded pool; every result is committed in model order. Never throws for a tool's failure: the
 * model gets an error result it can act on.
 */
export async function runToolCalls(blocks: readonly ToolCallBlock[], s: ToolStep): Promise<void> {
  const open = new Set<string>()
  const context: PendingContext[] = []
  try {
    let i = 0
    while (i < blocks.length) {
      const first = await prepare(blocks[i], s)
      const group: Prepared[] = [first]
      i++
      if (first.tool?.readOnly && !first.answer) {
        while (i < blocks.length) {
          const next = blocks[i]
          const tool = s.tools.get(next.name)
          if (!tool?.readOnly) break
          const prepared = await prepare(next, s)
          if (prepared.answer) {
            group.push(prepared)
            i++
            break
          }
          group.push(prepared)
          i++
        }
      }
      for (const p of group) {
        s.session.append('tool/call', {
          turn: s.turn,
          step: s.step,
          callId: p.block.id,
          name: p.block.name,
          arguments: p.block.arguments,
          ...(p.rewrittenBy ? { rewritten: { arguments: p.call.arguments, by: p.rewrittenBy } } : {}),
        })
        open.add(p.block.id)
      }
      await s.session.flush()
      const outputs = await runPool(group, s)
      for (let k = 0; k < group.length; k++) {
        context.push(...(await commit(group[k], outputs[k], s)))
        open.delete(group[k].block.id)
      }
    }
    // Context from postTool listeners enters after every result: nothing may stand between a call and its result.
    for (const entry of context) {
      s.session.append('context/message', {
        id: randomUUID(),
        content: entry.content,
        source: entry.source,
        ...(entry.meta !== undefined ? { meta: entry.meta } : {}),
      })
    }
  } finally {
    // A listener failure mid-batch must not leave calls without results: the log would not load as a whole turn.
    for (const callId of open) {
      s.session.append('tool/result', {
        turn: s.turn,
        step: s.step,
        callId,
        content: [{ type: 'text', text: 'The harness failed before this call finished; its outcome is unknown. Check for side effects before retrying.' }],
        isError: true,
      })
    }
  }
}

async function prepare(block: ToolCallBlock, s: ToolStep): Promise<Prepared> {
  const parsed = parseArguments(block.arguments)
  const call: ToolCallInfo = {
    turn: s.turn,
    step: s.step,
    callId: block.id,
    name: block.name,
    arguments: block.arguments,
    input: parsed.ok ? parsed.value : undefined,
    tool: toolFacts(s.tools.get(block.name)),
  }
  if (s.signal.aborted) return { block, call, answer: errorResult('Cancelled by the user before this call ran; nothing was done.') }
  const tool = s.tools.get(block.name)
  if (!tool) {
    const names = [...s.tools.keys()].sort().join(', ')
    return { block, call, answer: errorResult(`Error: there is no tool named "${block.name}". Available tools: ${names}.`) }
  }
  const first = validate(tool, parsed)
  if ('error' in first) return { block, call, tool, answer: errorResult(first.error) }

  const decided = await s.listeners.preTool(call, (raw) => {
    const p = parseArguments(raw)
    return p.ok ? p.value : undefined
  })
  let args = first.args
  if (decided.rewrittenBy) {
    const again = validate(tool, parseArguments(decided.call.arguments))
    if ('error' in again) {
      const answer = errorResult(`${again.error} (The arguments were rewritten by ${decided.rewrittenBy}.)`)
      return { block, call: decided.call, tool, answer, rewrittenBy: decided.rewrittenBy }
    }
    args = again.args
  }
  const base = { block, call: decided.call, tool, args, rewrittenBy: decided.rewrittenBy }
  if (decided.verdict === 'deny') {
    return { ...base, answer: errorResult(`Error: permission denied: ${decided.reason ?? 'a policy refused this call'}`) }
  }
  if (decided.verdict === 'ask') {
    const request: PermissionRequest = {
      call: decided.call,
      reason: decided.reason ?? 'This call needs permission.',
      ...(decided.suggestedRule ? { suggestedRule: decided.suggestedRule } : {}),
    }
    const answer = (await s.listeners.answerPermission(request)) ?? (await askFrontEnd(request, s))
    await s.listeners.permissionAnswered(request, answer)
    if (answer.outcome === 'unanswered') {
      const sentence = s.permissionNeeded?.(decided.call, decided.reason) ?? defaultPermissionNeeded(decided.call)
      return { ...base, answer: errorResult(sentence) }
    }
    if (answer.outcome === 'deny') {
      const note = answer.note ? ` The user said: ${answer.note}` : ''
      return { ...base, answer: errorResult(`Error: the user denied permission for this ${block.name} call.${note}`) }
    }
    // An approval that changed the arguments (an Agent SDK host's `updatedInput`) is checked like a listener's rewrite.
    if (answer.outcome === 'allow-once' && answer.arguments !== undefined) {
      const by = answer.by ?? 'the permission answer'
      const changed = validate(tool, parseArguments(answer.arguments))
      const call = { ...decided.call, arguments: answer.arguments, input: JSON.parse(answer.arguments) as unknown }
      if ('error' in changed) return { ...base, call, rewrittenBy: by, answer: errorResult(`${changed.error} (The arguments were changed by ${by}.)`) }
      return { ...base, call, args: changed.args, rewrittenBy: by }
    }
  }
  return base
}

/** The front end's answer; a prompt that fails (a client gone away) counts as a denial. */
async function askFrontEnd(request: PermissionRequest, s: ToolStep): Promise<PermissionAnswer> {
  if (!s.asker) return { outcome: 'unanswered' }
  await s.listeners.permissionAsked(request)
  return s.asker(request, s.signal).catch((): PermissionAnswer => ({ outcome: 'deny' }))
}

async function runPool(group: Prepared[], s: ToolStep): Promise<ToolOutput[]> {
  const outputs: ToolOutput[] = new Array(group.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < group.length) {
      const index = next++
      outputs[index] = await runOne(group[index], s)
    }
  }
  const width = Math.min(group.length, Math.max(1, s.concurrency))
  await Promise.all(Array.from({ length: width }, worker))
  return outputs
}

async function runOne(p: Prepared, s: ToolStep): Promise<ToolOutput> {
  if (p.answer) return p.answer
  if (s.signal.aborted) return errorResult('Cancelled by the user before this call ran; nothing was done.')
  const tool = p.tool as AnyTool
  const ctx: ToolContext = {
    cwd: s.session.cwd,
    callId: p.block.id,
    signal: s.signal,
    state: s.state,
    record: (type, data) => {
      s.session.append(type, data)
    },
    progress: (text) => s.emit({ type: 'tool-progress', callId: p.block.id, text }),
  }
  try {
    const output = await tool.run(p.args, ctx)
    if (s.signal.aborted && !output.isError) {
      return { ...output, content: [...output.content, { type: 'text', text: '(The user cancelled the turn while this ran.)' }] }
    }
    return output
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return errorResult(`Error: ${tool.name} failed unexpectedly: ${message}`)
  }
}

type PendingContext = { content: InputBlock[]; source: Source; meta?: JsonValue }

async function commit(p: Prepared, output: ToolOutput, s: ToolStep): Promise<PendingContext[]> {
  let content: InputBlock[] = output.content
  let context: PendingContext[] = []
  if (!p.answer && p.tool) {
    const post = await s.listeners.postTool(p.call, output)
    if (post.content) content = post.content
    if (post.blocks.length) content = [...content, { type: 'text', text: post.blocks.join('\n') }]
    context = post.context
  }
  s.session.append('tool/result', {
    turn: s.turn,
    step: s.step,
    callId: p.block.id,
    content,
    isError: output.isError === true,
    ...(output.meta !== undefined ? { meta: output.meta } : {}),
  })
  return context
}
