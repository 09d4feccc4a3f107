/** Most characters a model-made title keeps; a longer answer is cut at a word with an ellipsis. */
export const TITLE_MAX_CHARS = 60

/** Line breaks of every kind: a title is the answer's first line that says something. */
const LINE_BREAK = /\r\n|[\n\r\u0085\u2028\u2029]/
/** Controls (C0, C1, DEL, tab), format characters (bidi overrides and isolates, zero-width, soft hyphen, BOM), private and unassigned code points. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}]/gu
/** A label the model may put first despite the instruction. */
const LABEL = /^(?:#+\s*|(?:session\s+)?title\s*[:：-]\s*)/iu
/** Quotes and emphasis marks around the whole title. */
const WRAPPING = /^["'`*_“”‘’«»「」]+|["'`*_“”‘’«»「」]+$/gu
/** What a title must hold at least one of: a letter or a digit, in any script. */
const MEANINGFUL = /[\p{L}\p{N}]/u

/**
 * The title a model's answer gives, or undefined when it gives none (empty, or no letter or digit on any line).
 * What holds for every string returned: one line, no control, format (bidi, zero-width) or private-use character,
 * no leading label or wrapping quotes, single spaces, trimmed, at most `TITLE_MAX_CHARS` code points.
 */
export function titleFromAnswer(answer: string): string | undefined {
  for (const raw of answer.split(LINE_BREAK)) {
    const line = cleanLine(raw)
    if (MEANINGFUL.test(line)) return shortened(line)
  }
  return undefined
}

function cleanLine(raw: string): string {
  let line = raw.replace(UNPRINTABLE, (c) => (c === '\t' ? ' ' : '')).replace(/\s+/gu, ' ').trim()
  line = line.replace(LABEL, '').trim()
  line = line.replace(WRAPPING, '').trim()
  return line.replace(/[.:;,]+$/u, '').trim()
}

/** `line` cut to `TITLE_MAX_CHARS` code points: at the last space past half the limit, else mid-word, with `…`. */
function shortened(line: string): string {
  const points = [...line]
  if (points.length <= TITLE_MAX_CHARS) return line
  const head = points.slice(0, TITLE_MAX_CHARS - 1).join('')
  const space = head.lastIndexOf(' ')
  const cut = space > head.length / 2 ? head.slice(0, space) : head
  return `${cut.replace(/[\s.:;,]+$/u, '')}…`
}
