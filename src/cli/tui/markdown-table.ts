import stringWidth from 'string-width'
import wrapAnsi from 'wrap-ansi'

/** How a column's cells sit in their width (GFM's `:--`, `:-:`, `--:`; none is left). */
export type ColumnAlign = 'left' | 'center' | 'right' | null

/** The separators, as drawn; `paint` styles them (dim in the conversation). */
const CELL_GAP = ' │ '
const RULE_GAP = '─┼─'
const GAP_COLUMNS = 3

/**
 * Column widths that fit `available` columns: every column keeps its natural width when all fit; else the narrow
 * ones keep theirs and the wide ones share what is left equally (at least one column each).
 */
export function fitColumns(natural: readonly number[], available: number): number[] {
  if (natural.reduce((a, b) => a + b, 0) <= available) return [...natural]
  const widths = natural.map(() => 0)
  const open = natural.map((_, i) => i)
  let left = available
  for (;;) {
    const share = Math.floor(left / Math.max(1, open.length))
    const narrow = open.filter((i) => natural[i] <= share)
    if (!narrow.length) break
    for (const i of narrow) {
      widths[i] = natural[i]
      left -= natural[i]
    }
    open.splice(0, open.length, ...open.filter((i) => !narrow.includes(i)))
  }
  const share = Math.max(1, Math.floor(left / Math.max(1, open.length)))
  let extra = Math.max(0, left - share * open.length)
  for (const i of open) {
    widths[i] = share + (extra > 0 ? 1 : 0)
    if (extra > 0) extra--
  }
  return widths
}

function pad(text: string, width: number, align: ColumnAlign): string {
  const room = Math.max(0, width - stringWidth(text))
  if (align === 'right') return ' '.repeat(room) + text
  if (align === 'center') return ' '.repeat(Math.floor(room / 2)) + text + ' '.repeat(room - Math.floor(room / 2))
  return text + ' '.repeat(room)
}

/**
 * A table of styled cells laid out in columns measured in terminal cells (`string-width`: a CJK character or an emoji
 * takes two, an escape sequence none), a rule under the header, each row's cells wrapped to their column when the
 * table is wider than `width` (a wide character is never split). Trailing padding is trimmed from each line.
 */
export function layoutTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: { align: readonly ColumnAlign[]; width: number; indent: string; paint: (separator: string) => string },
): string {
  const count = Math.max(header.length, ...rows.map((r) => r.length))
  const cellsOf = (row: readonly string[]) => Array.from({ length: count }, (_, i) => (row[i] ?? '').replace(/\n/g, ' '))
  const all = [cellsOf(header), ...rows.map(cellsOf)]
  const natural = Array.from({ length: count }, (_, i) => Math.max(1, ...all.map((r) => stringWidth(r[i]))))
  const available = Math.max(count, options.width - stringWidth(options.indent) - GAP_COLUMNS * (count - 1))
  const widths = fitColumns(natural, available)
  const line = (row: string[]): string[] => {
    const wrapped = row.map((cell, i) => (stringWidth(cell) > widths[i] ? wrapAnsi(cell, widths[i], { hard: true, trim: true }).split('\n') : [cell]))
    const height = Math.max(...wrapped.map((w) => w.length))
    return Array.from({ length: height }, (_, at) =>
      (options.indent + wrapped.map((w, i) => pad(w[at] ?? '', widths[i], options.align[i] ?? null)).join(options.paint(CELL_GAP))).trimEnd(),
    )
  }
  const rule = options.indent + options.paint(widths.map((w) => '─'.repeat(w)).join(RULE_GAP))
  const [head, ...body] = all
  return [...line(head), rule, ...body.flatMap(line)].join('\n')
}
