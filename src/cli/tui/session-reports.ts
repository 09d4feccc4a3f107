import { describeChanges } from '../../checkpoints/describe-changes.js'
import type { SessionEvent, SurfaceEvent } from '../../session/events.js'
import { counted } from '../../text/count.js'
import { isSurfaceEvent } from '../../session/events.js'
import { blocksText } from './transcript.js'
import { formatCost, formatTokens, type SideCost, type SubagentCost, type TurnCost } from './usage-ledger.js'

/** A rough token count: 4 bytes a token, DeepSeek's tokenizer's average on English and code. */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4)
}

/**
 * The surface as the next request will see it: each event in the order the projection reads them, with replaced
 * runs shadowed. Uses the session's own surface when it has one; otherwise applies the surface ops to the events.
 */
export function surfaceOf(events: readonly SessionEvent[]): SurfaceEvent[] {
  let surface: SurfaceEvent[] = []
  for (const event of events) {
    if (!isSurfaceEvent(event)) continue
    const op = event.surfaceOp
    if (op && typeof op === 'object') {
      const start = surface.findIndex((e) => e.seq === op.start)
      const end = surface.findIndex((e) => e.seq === op.end)
      if (start >= 0 && end >= start) surface = [...surface.slice(0, start), event, ...surface.slice(end + 1)]
      else surface.push(event)
    } else surface.push(event)
  }
  return surface
}

/** `/context`: what the next request contains, grouped by who produced it, with estimated token counts. */
export function contextReport(events: readonly SessionEvent[]): string {
  const rows = new Map<string, { count: number; tokens: number }>()
  const add = (name: string, tokens: number) => {
    const row = rows.get(name) ?? { count: 0, tokens: 0 }
    rows.set(name, { count: row.count + 1, tokens: row.tokens + tokens })
  }
  let header: SessionEvent | undefined
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i].type === 'request/header') {
      header = events[i]
      break
    }
  }
  if (header?.type === 'request/header') {
    add('system prompt', estimateTokens(header.data.system))
    add(`tool schemas (${counted(header.data.tools.length, 'tool')})`, estimateTokens(JSON.stringify(header.data.tools)))
  }
  for (const event of surfaceOf(events)) {
    switch (event.type) {
      case 'user/message':
        add('your prompts', estimateTokens(blocksText(event.data.content)))
        break
      case 'steering/message':
        add(`steering · ${event.data.source.kind}`, estimateTokens(blocksText(event.data.content)))
        break
      case 'context/message':
        add(`context · ${event.data.source.kind}`, estimateTokens(blocksText(event.data.content)))
        break
      case 'assistant/message':
        add(
          'assistant replies (with reasoning)',
          estimateTokens(event.data.message.content.map((b) => ('text' in b ? b.text : b.arguments)).join('')),
        )
        break
      case 'tool/result':
        add('tool results', estimateTokens(blocksText(event.data.content)))
        break
    }
  }
  if (!rows.size) return 'The next request holds only what the agent adds when it starts: nothing has been logged yet.'
  const total = [...rows.values()].reduce((sum, r) => sum + r.tokens, 0)
  const lines = [...rows.entries()].map(
    ([name, r]) => `${formatTokens(r.tokens).padStart(7)}  ${name}${r.count > 1 ? ` ×${r.count}` : ''}`,
  )
  return [...lines, `${formatTokens(total).padStart(7)}  total (estimated at 4 bytes a token)`].join('\n')
}

/** `/cost`: usage and cost by turn; the subagents' figures, when any ran, on lines of their own. */
export function costReport(turns: readonly TurnCost[], children?: SubagentCost, side: readonly SideCost[] = []): string {
  if (!turns.length && !side.length) return 'No model usage yet.'
  const lines = turns.map((t) => {
    const prompt = t.usage.inputUncached + t.usage.inputCacheRead
    const hit = prompt ? Math.round((t.usage.inputCacheRead / prompt) * 100) : 0
    return `turn ${String(t.turn).padStart(3)}  ${t.model}  in ${formatTokens(prompt)} (${hit}% cached)  out ${formatTokens(t.usage.output)}  ${formatCost(t.cost)}`
  })
  // Model-made titles and compaction summaries: the session's own spend, outside every turn.
  for (const s of side) {
    const prompt = s.usage.inputUncached + s.usage.inputCacheRead
    const label = `${s.kind}${s.requests > 1 ? ` ×${s.requests}` : ''}`
    lines.push(`${label.padEnd(8)}  ${s.model}  in ${formatTokens(prompt)}  out ${formatTokens(s.usage.output)}  ${formatCost(s.cost)}`)
  }
  const total = turns.reduce((sum, t) => sum + t.cost, 0) + side.reduce((sum, s) => sum + s.cost, 0)
  if (!children?.runs) return [...lines, `total ${formatCost(total)}`].join('\n')
  const prompt = children.usage.inputUncached + children.usage.inputCacheRead
  const hit = prompt ? Math.round((children.usage.inputCacheRead / prompt) * 100) : 0
  return [
    ...lines,
    `subagents (${counted(children.runs, 'run')})  in ${formatTokens(prompt)} (${hit}% cached)  out ${formatTokens(children.usage.output)}  ${formatCost(children.cost)}`,
    `total ${formatCost(total)} + ${formatCost(children.cost)} subagents = ${formatCost(total + children.cost)}`,
  ].join('\n')
}

/** `/hooks`: every hook that ran in this session and what it decided. */
export function hooksReport(events: readonly SessionEvent[]): string {
  const lines: string[] = []
  const handlers = new Map<string, string>()
  for (const event of events) {
    if (event.type === 'hook/invoked') handlers.set(event.data.id, event.data.handler)
    if (event.type === 'hook/result') {
      const d = event.data
      lines.push(
        `${d.event}  ${handlers.get(d.id) ?? d.id}  → ${d.decision} (${d.durationMs} ms${d.exitCode !== null ? `, exit ${d.exitCode}` : ''})${d.reason ? `: ${d.reason}` : ''}`,
      )
    }
  }
  return lines.length ? lines.join('\n') : 'No hooks have run in this session.'
}

/** `/export`: the conversation as Markdown. Injected context and steering are marked as such. */
export function exportMarkdown(events: readonly SessionEvent[], title?: string): string {
  const out: string[] = [`# ${title ?? 'Rein session'}`, '']
  for (const event of events) {
    switch (event.type) {
      case 'user/message':
        out.push(`## You`, '', blocksText(event.data.content), '')
        break
      case 'steering/message':
        out.push(`> **steering** (${event.data.source.kind}): ${blocksText(event.data.content)}`, '')
        break
      case 'context/message':
        out.push(`<details><summary>context · ${event.data.source.kind}</summary>`, '', blocksText(event.data.content), '', '</details>', '')
        break
      case 'assistant/message': {
        const text = event.data.message.content
          .map((b) => (b.type === 'text' ? b.text : ''))
          .join('')
        if (text.trim()) out.push(`## Rein`, '', text, '')
        break
      }
      case 'tool/call':
        out.push(`- tool \`${event.data.name}\` \`${event.data.arguments}\``)
        break
      case 'tool/result':
        if (event.data.isError) out.push(`  - error: ${blocksText(event.data.content).split('\n')[0]}`)
        out.push('')
        break
      case 'checkpoint/changes':
        if (event.data.paths.length) out.push(`- changed: ${describeChanges(event.data.paths)}`)
        break
    }
  }
  return out.join('\n')
}
