/**
 * What the conversation prints is text, never terminal control: tool output, file names, model text and pasted
 * prompts can hold escape sequences (a colour code, a title change, a cursor move, an OSC 52 clipboard write) that
 * would act on the user's terminal. Every string the transcript folds passes through `printable` first; the UI's own
 * styling is added after, by the renderer.
 */
import { replaceControls } from '../../frontend/render/index.js'

/** The longest output line a card keeps (a 10 MB line would cost seconds to measure and wrap on every frame). */
export const MAX_LINE_CHARS = 1000

/** Columns a tab becomes: ink measures a tab as zero columns, so a raw tab breaks the box around it. */
const TAB = '    '

// Control characters and bidirectional overrides are the point of this pattern (the same set `replaceControls` replaces).
// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/

/** The picture a control character is shown as: ␛ for ESC (U+2400 + code for C0), ␡ for DEL, � for C1 and overrides. */
function picture(char: string): string {
  const code = char.charCodeAt(0)
  if (code < 0x20) return String.fromCharCode(0x2400 + code)
  return code === 0x7f ? '␡' : '\ufffd'
}

/**
 * Each control character shown as its visible picture (ESC as ␛), `\r\n` and lone `\r` as line breaks, tabs as
 * spaces; the set of characters replaced is the front-end core's (`replaceControls`, shared with every surface).
 */
export function printable(text: string): string {
  if (!ANY_CONTROL.test(text)) return text
  return replaceControls(text.replace(/\r\n?/g, '\n').replace(/\t/g, TAB), picture)
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
