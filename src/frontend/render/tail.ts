/** How many output lines a tool card keeps: enough to see where a command got to, few enough to stay compact. */
export const TAIL_LINES = 5

/** Keeps the last `keep` lines after appending `text` (which may hold partial lines). */
export function appendTail(tail: readonly string[], text: string, keep = TAIL_LINES): string[] {
  const lines = tail.slice()
  const pieces = text.split('\n')
  if (lines.length) lines[lines.length - 1] += pieces.shift() ?? ''
  lines.push(...pieces)
  return lines.slice(-keep)
}

/** `1.2 s`, `340 ms`, `2 m 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const m = Math.floor(ms / 60_000)
  const s = Math.round((ms % 60_000) / 1000)
  return `${m} m ${String(s).padStart(2, '0')} s`
}
