import type { SessionEvent } from '../../session/events.js'
import { resultText } from '../../sandbox/result-mark.js'
import { counted } from '../../text/count.js'
import { printableLine } from './printable.js'
import type { Item } from './transcript.js'
import { shellOutputText } from './shell-mode.js'

/** The most output lines the expand key prints of one tool result; `/export` writes all of it. */
export const EXPAND_LINES = 500

/**
 * What the expand key (Ctrl+O) prints below for a collapsed item: the whole reasoning or context text, or a tool
 * card's output read back from its `tool/result` in the log (the card keeps only its tail), cut to the last
 * `EXPAND_LINES` lines with each line made printable.
 */
export function expansionOf(
  item: Extract<Item, { kind: 'reasoning' | 'context' | 'tool' }>,
  events: readonly SessionEvent[],
): { title: string; text: string } | undefined {
  if (item.kind === 'reasoning') return { title: 'reasoning', text: item.text }
  if (item.kind === 'context') return { title: `context · ${item.label}`, text: item.text }
  const result = events.findLast(
    (e): e is SessionEvent<'tool/result'> => e.type === 'tool/result' && e.data.callId === item.card.callId,
  )
  const output = result ? resultText(result.data.content) : shellOutputText(events, item.card.callId)
  if (output === undefined) return undefined
  const lines = output.replace(/\n+$/, '').split('\n')
  const shown = lines.slice(-EXPAND_LINES).map(printableLine)
  const left = lines.length - shown.length
  const head = left ? [`… ${counted(left, 'earlier line')} not shown; /export writes all of it.`] : []
  return { title: `${item.card.name} ${item.card.target} · output`.replace(/\s+·/, ' ·'), text: [...head, ...shown].join('\n') }
}
