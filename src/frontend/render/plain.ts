// Text from the model, a tool or a file name is shown on terminals and pages: escape sequences and control characters
// in it would move the cursor, retitle the window or hide text. Everything a surface shows of a call passes here.

// The escape and control characters are the point of these patterns.
/* eslint-disable no-control-regex */
/** CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ST`) and other two-character escapes. */
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[P^_][^\x1b]*(?:\x1b\\)?|\x1b[@-Z\\-_]?/g
/** C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides that reorder what is shown. */
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g
/* eslint-enable no-control-regex */

/**
 * `text` with every control character but tab and newline — C0, DEL, C1 — and every bidirectional override replaced
 * by what `shown` makes of it. The one rule of what may not reach a screen raw; `plainText` shows each as `�`, the
 * terminal UI's `printable` as its visible picture.
 */
export function replaceControls(text: string, shown: (char: string) => string): string {
  return text.replace(CONTROLS, shown)
}

/** Text with its lines kept, with no escape sequence or control character left (a lone control shows as `�`). */
export function plainText(text: string): string {
  return replaceControls(text.replace(ESCAPES, '').replace(/\r\n/g, '\n'), () => '\uFFFD')
}

/** One line: the first line of the plain text, ` …` when more followed, cut to `max` characters with `…`. */
export function plainLine(text: string, max = 200): string {
  const plain = plainText(text).replace(/\t/g, ' ')
  const at = plain.search(/\n/)
  const first = at === -1 ? plain : plain.slice(0, at).trimEnd()
  const more = at !== -1 && plain.slice(at).trim() !== ''
  return shorten(more ? `${first} …` : first, max)
}

/** `text` cut to at most `max` characters (counted in code points, so no surrogate pair is split), `…` at the cut. */
export function shorten(text: string, max: number): string {
  const chars = Array.from(text)
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`
}
