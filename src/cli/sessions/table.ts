import type { SessionSummary } from '../../store/store.js'

/** Characters of an id the list shows; `rein sessions` commands accept any unique prefix. */
export const SHORT_ID = 8

/**
 * The `rein sessions list` table: short id, last activity (local time), turns, size, title; `withCwd` adds the
 * directory. A subagent's session is marked in its title with its type and parent.
 */
export function renderSessionTable(summaries: readonly SessionSummary[], withCwd: boolean): string {
  const rows = summaries.map((s) => [
    s.id.slice(0, SHORT_ID),
    localTime(s.updatedAt),
    String(s.turns),
    size(s.bytes),
    ...(withCwd ? [s.cwd] : []),
    (s.subagent ? `↳ ${s.subagent.agent} subagent of ${s.subagent.parent.slice(0, SHORT_ID)}: ` : '') + (s.title || '(no prompt yet)'),
  ])
  const head = ['ID', 'UPDATED', 'TURNS', 'SIZE', ...(withCwd ? ['CWD'] : []), 'TITLE']
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)))
  const last = head.length - 1
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => (i === last ? cell : i === 2 || i === 3 ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
  return `${[head, ...rows].map(line).join('\n')}\n`
}

function localTime(ms: number): string {
  const d = new Date(ms)
  const two = (n: number): string => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}
