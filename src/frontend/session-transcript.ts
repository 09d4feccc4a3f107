import type { InputBlock, Usage } from '../llm/messages.js'
import type { SessionEvent, SessionHeader } from '../session/events.js'
import { describeChanges, describeRewind, describeRewindUndone } from '../checkpoints/describe-changes.js'
import type { Change } from '../checkpoints/engine.js'
import { counted } from '../text/count.js'

/**
 * A readable account of a session for people (`rein sessions show` and the Markdown export). This is a UI, not the
 * projection: it labels injected context `[context]` and steering `[steering]`, which the model never sees.
 */
type Entry =
  | { kind: 'turn-start'; turn: number }
  | { kind: 'turn-end'; turn: number; reason: string; error?: string }
  | { kind: 'prompt' | 'context' | 'steering' | 'assistant' | 'reasoning'; text: string; note?: string }
  | { kind: 'tool-call'; name: string; arguments: string }
  | { kind: 'tool-result'; name: string; text: string; isError: boolean }
  | { kind: 'title'; text: string }
  | { kind: 'subagent-start'; agent: string; child: string; description: string }
  | { kind: 'subagent-end'; child: string; outcome: string; usage: Usage; cost: number }
  /** What a step changed in the workspace (`checkpoint/changes`), placed after the step's tool results. */
  | { kind: 'changes'; paths: Change[] }
  /** A rewind or its undo, as one sentence. */
  | { kind: 'rewind'; text: string }

/** How many lines of a tool result `show` prints before eliding the rest. */
const RESULT_LINES = 12
/** Characters of reasoning `show` prints. */
const REASONING_CHARS = 600

function entriesOf(events: readonly SessionEvent[]): Entry[] {
  const entries: Entry[] = []
  const toolNames = new Map<string, string>()
  // `checkpoint/changes` is logged just before the step's last tool result; it is shown once the step has ended.
  let changed: Entry | undefined
  const placeChanges = () => {
    if (changed) entries.push(changed)
    changed = undefined
  }
  for (const e of events) {
    if (changed && (e.type === 'step/end' || e.type === 'step/start' || e.type === 'turn/end' || e.type === 'turn/start')) placeChanges()
    const replaces = typeof e.surfaceOp === 'object' ? `replaces seqs ${e.surfaceOp.start}–${e.surfaceOp.end}` : undefined
    switch (e.type) {
      case 'turn/start':
        entries.push({ kind: 'turn-start', turn: e.data.turn })
        break
      case 'turn/end': {
        const data = e.data
        entries.push({ kind: 'turn-end', turn: data.turn, reason: data.reason, ...(data.error ? { error: data.error.message } : {}) })
        break
      }
      case 'user/message':
      case 'context/message':
      case 'steering/message': {
        const data = e.data
        const kind = e.type === 'user/message' ? 'prompt' : e.type === 'context/message' ? 'context' : 'steering'
        entries.push({ kind, text: blocksText(data.content), ...(replaces ? { note: replaces } : {}) })
        break
      }
      case 'assistant/message': {
        const data = e.data
        for (const block of data.message.content) {
          if (block.type === 'reasoning') entries.push({ kind: 'reasoning', text: block.text })
          else if (block.type === 'text') {
            entries.push({ kind: 'assistant', text: block.text, ...(data.interrupted ? { note: 'interrupted' } : {}) })
          } else {
            toolNames.set(block.id, block.name)
            entries.push({ kind: 'tool-call', name: block.name, arguments: block.arguments })
          }
        }
        break
      }
      case 'tool/result': {
        const data = e.data
        const name = toolNames.get(data.callId) ?? data.callId
        entries.push({ kind: 'tool-result', name, text: blocksText(data.content), isError: data.isError })
        break
      }
      case 'session/title':
        entries.push({ kind: 'title', text: e.data.title })
        break
      case 'subagent/start':
        entries.push({ kind: 'subagent-start', ...e.data })
        break
      case 'subagent/end':
        entries.push({ kind: 'subagent-end', ...e.data })
        break
      case 'checkpoint/rewind':
        entries.push({ kind: 'rewind', text: describeRewind(e.data) })
        break
      case 'checkpoint/rewind-undone':
        entries.push({ kind: 'rewind', text: describeRewindUndone(e.data) })
        break
      case 'checkpoint/changes':
        if (e.data.paths.length) changed = { kind: 'changes', paths: e.data.paths.map((p) => ({ path: p.path, kind: p.kind })) }
        break
    }
  }
  placeChanges()
  return entries
}

function blocksText(blocks: readonly InputBlock[]): string {
  return blocks
    .map((block) => (block.type === 'text' ? block.text : `[image ${block.mimeType}, ${Math.round((block.data.length * 3) / 4 / 1024)} KiB]`))
    .join('\n')
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n')
}

function elide(text: string, lines: number): string {
  const all = text.split('\n')
  return all.length <= lines ? text : `${all.slice(0, lines).join('\n')}\n… (${all.length - lines} more lines)`
}

/** The terminal transcript: one block per entry, long tool results and reasoning shortened. */
export function renderTranscript(header: SessionHeader, events: readonly SessionEvent[]): string {
  const out: string[] = [`session ${header.id}`, `cwd     ${header.cwd}`, `created ${new Date(header.createdAt).toISOString()}`]
  if (header.parent) out.push(`forked  from ${header.parent.id} at seq ${header.parent.seq}`)
  if (header.subagent) out.push(`subagent ${header.subagent.agent} of ${header.subagent.parent} (call ${header.subagent.callId})`)
  const entries = entriesOf(events)
  for (const entry of entries) {
    switch (entry.kind) {
      case 'turn-start':
        out.push('', `── turn ${entry.turn} ──`)
        break
      case 'turn-end':
        if (entry.reason !== 'completed') out.push(`── turn ${entry.turn} ended: ${entry.reason}${entry.error ? ` (${entry.error})` : ''} ──`)
        break
      case 'prompt':
        out.push(indent(entry.text, '> ') + (entry.note ? `  (${entry.note})` : ''))
        break
      case 'context':
      case 'steering':
        out.push(`[${entry.kind}]${entry.note ? ` (${entry.note})` : ''} ${indent(entry.text, '  ').trimStart()}`)
        break
      case 'reasoning': {
        const text = entry.text.length > REASONING_CHARS ? `${entry.text.slice(0, REASONING_CHARS)}…` : entry.text
        out.push(`[reasoning] ${indent(text, '  ').trimStart()}`)
        break
      }
      case 'assistant':
        out.push(entry.text + (entry.note ? `  [${entry.note}]` : ''))
        break
      case 'tool-call':
        out.push(`→ ${entry.name} ${entry.arguments}`)
        break
      case 'tool-result':
        out.push(`← ${entry.name}${entry.isError ? ' (error)' : ''}\n${indent(elide(entry.text, RESULT_LINES), '  ')}`)
        break
      case 'title':
        out.push(`[title] ${entry.text}`)
        break
      case 'subagent-start':
        out.push(`  ↳ subagent ${entry.agent} (${entry.description}): session ${entry.child}`)
        break
      case 'subagent-end':
        out.push(`  ↳ subagent ${entry.child.slice(0, 8)} ${entry.outcome}: ${usageLine(entry.usage, entry.cost)}`)
        break
      case 'changes':
        out.push(`changed: ${describeChanges(entry.paths)}`)
        break
      case 'rewind':
        out.push(`[rewind] ${entry.text}`)
        break
    }
  }
  const children = subagentTotal(entries)
  if (children) out.push('', `subagents: ${children}`)
  return `${out.join('\n')}\n`
}

/** The Markdown export: the whole transcript, tool calls and results in full inside code fences. */
export function renderMarkdown(header: SessionHeader, events: readonly SessionEvent[]): string {
  const out: string[] = [`# Session ${header.id}`, '', `- cwd: \`${header.cwd}\``, `- created: ${new Date(header.createdAt).toISOString()}`]
  if (header.parent) out.push(`- forked from \`${header.parent.id}\` at seq ${header.parent.seq}`)
  if (header.subagent) out.push(`- subagent ${header.subagent.agent} of \`${header.subagent.parent}\` (call \`${header.subagent.callId}\`)`)
  const entries = entriesOf(events)
  for (const entry of entries) {
    switch (entry.kind) {
      case 'turn-start':
        out.push('', `## Turn ${entry.turn}`)
        break
      case 'turn-end':
        if (entry.reason !== 'completed') out.push('', `*Turn ${entry.turn} ended: ${entry.reason}${entry.error ? ` — ${entry.error}` : ''}*`)
        break
      case 'prompt':
        out.push('', '**User**', '', entry.text)
        break
      case 'context':
      case 'steering':
        out.push('', `**[${entry.kind}]**${entry.note ? ` (${entry.note})` : ''}`, '', fence(entry.text))
        break
      case 'reasoning':
        out.push('', '<details><summary>Reasoning</summary>', '', entry.text, '', '</details>')
        break
      case 'assistant':
        out.push('', `**Assistant**${entry.note ? ` (${entry.note})` : ''}`, '', entry.text)
        break
      case 'tool-call':
        out.push('', `**Tool call** \`${entry.name}\``, '', fence(entry.arguments, 'json'))
        break
      case 'tool-result':
        out.push('', `**Tool result** \`${entry.name}\`${entry.isError ? ' (error)' : ''}`, '', fence(entry.text))
        break
      case 'title':
        out.push('', `*Title: ${entry.text}*`)
        break
      case 'subagent-start':
        out.push('', `**Subagent** \`${entry.agent}\` (${entry.description}): session \`${entry.child}\``)
        break
      case 'subagent-end':
        out.push('', `*Subagent \`${entry.child}\` ${entry.outcome}: ${usageLine(entry.usage, entry.cost)}*`)
        break
      case 'rewind':
        out.push('', `*${entry.text}*`)
        break
      case 'changes':
        out.push('', `*Changed: ${entry.paths.map((p) => `${fence(p.path, '', true)} (${p.kind})`).join(', ')}*`)
        break
    }
  }
  const children = subagentTotal(entries)
  if (children) out.push('', `*Subagents: ${children}*`)
  return `${out.join('\n')}\n`
}

/** Tokens and cost of one child's run, as its `subagent/end` logged them. */
function usageLine(usage: Usage, cost: number): string {
  const input = usage.inputUncached + usage.inputCacheRead
  return `${input} tokens in (${usage.inputCacheRead} cached), ${usage.output} out, $${cost.toFixed(6)}`
}

/** The children's runs summed, shown apart from the session's own usage; undefined when it ran none. */
function subagentTotal(entries: readonly Entry[]): string | undefined {
  const ends = entries.filter((e): e is Entry & { kind: 'subagent-end' } => e.kind === 'subagent-end')
  if (!ends.length) return undefined
  const cost = ends.reduce((sum, e) => sum + e.cost, 0)
  const tokens = ends.reduce((sum, e) => sum + e.usage.inputUncached + e.usage.inputCacheRead + e.usage.output, 0)
  return `${counted(ends.length, 'run')}, ${tokens} tokens, $${cost.toFixed(6)}`
}

/** A code fence longer than any backtick run inside `text`, so the content can never close it. */
function fence(text: string, language = '', inline = false): string {
  let longest = inline ? 0 : 2
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length)
  const ticks = '`'.repeat(longest + 1)
  // Inline code that starts or ends with a backtick needs a space inside the fence (CommonMark strips one each side).
  if (inline) return /^`|`$/.test(text) ? `${ticks} ${text} ${ticks}` : `${ticks}${text}${ticks}`
  return `${ticks}${language}\n${text}\n${ticks}`
}
