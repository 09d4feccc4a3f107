/**
 * What the conversation prints is text, never terminal control: tool output, file names, model text and pasted
 * prompts can hold escape sequences (a colour code, a title change, a cursor move, an OSC 52 clipboard write) that
 * would act on the user's terminal. Every string the transcript folds passes through `printable` first; the UI's own
 * styling is added after, by the renderer.
 */

/** The longest output line a card keeps (a 10 MB line would cost seconds to measure and wrap on every frame). */
export const MAX_LINE_CHARS = 1000

/** Columns a tab becomes: ink measures a tab as zero columns, so a raw tab breaks the box around it. */
const TAB = '    '

// Control characters are the point of this pattern: C0 but tab and newline, DEL, and the C1 range.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]/g

/** Each control character shown as its visible picture (ESC as ␛), `\r\n` and lone `\r` as line breaks, tabs as spaces. */
export function printable(text: string): string {
  if (!/[\x00-\x1f\x7f-\x9f]/.test(text)) return text
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, TAB)
    .replace(CONTROL, (c) => {
      const code = c.charCodeAt(0)
      if (code < 0x20) return String.fromCharCode(0x2400 + code)
      return code === 0x7f ? '␡' : '\ufffd'
    })
}

/** One output line for a card: printable and at most `MAX_LINE_CHARS` long, saying how much was cut. */
export function printableLine(line: string): string {
  const cut = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} … (${line.length - MAX_LINE_CHARS} more characters)` : line
  return printable(cut)
}

/** A copy of `value` with every string in it printable: items and cards are plain data (strings, numbers, arrays). */
export function printableDeep<T>(value: T): T {
  if (typeof value === 'string') return printable(value) as T
  if (Array.isArray(value)) return value.map((v: unknown) => printableDeep(v)) as T
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = printableDeep(v)
    return out as T
  }
  return value
}
