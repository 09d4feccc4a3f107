import type { Change } from './engine.js'
import { counted } from '../text/count.js'

/** `a.txt (modified), b.txt (added)`: every path with its kind, in the order the step's listing gave them. */
export function describeChanges(paths: readonly Change[]): string {
  return paths.map((p) => `${p.path} (${p.kind})`).join(', ')
}

/**
 * `3 files changed: a.txt, b.txt, c.txt`, folded after `shown` paths (`… and 4 more`): one short line that stays
 * short however many files a step changed.
 */
export function summarizeChanges(paths: readonly Change[], shown = 3): string {
  const names = paths.slice(0, shown).map((p) => p.path)
  const rest = paths.length - names.length
  return `${counted(paths.length, 'file')} changed: ${names.join(', ')}${rest > 0 ? `, … and ${rest} more` : ''}`
}

/** One line for a logged rewind (`checkpoint/rewind`), as transcripts show it. */
export function describeRewind(data: { turn: number; target?: string; changes?: readonly Change[]; kept?: readonly string[]; fork?: { id: string } }): string {
  const parts: string[] = []
  if (data.target) parts.push(`${counted(data.changes?.length ?? 0, 'file')} restored${data.kept?.length ? `, ${data.kept.length} kept as they were` : ''}`)
  if (data.fork) parts.push(`the conversation continues in session ${data.fork.id}`)
  return `Rewound to the start of turn ${data.turn}${parts.length ? `: ${parts.join('; ')}` : ''}.`
}

/** One line for an undone rewind (`checkpoint/rewind-undone`). */
export function describeRewindUndone(data: { changes: readonly Change[] }): string {
  return `Undid a rewind: ${counted(data.changes.length, 'file')} back as they were before it.`
}
