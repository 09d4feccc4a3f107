/**
 * The longest piece of plain text that every match of a JavaScript regular expression (no `u` flag) contains, or
 * undefined when none is known. The built-in search looks for it in a file's bytes before decoding the file and running
 * the pattern: a file without it cannot match, and most files of a search do not match.
 *
 * Contract: if `new RegExp(pattern, ignoreCase ? 'i' : '')` matches anywhere in a string, that string contains the
 * returned text (case-sensitively). The reading is conservative: a pattern with `|` anywhere gives undefined; groups,
 * classes, anchors, `.` and escapes of letters or digits (`\d`, `\b`, `\u0041`, back-references) end a run of text and
 * contribute nothing; a character followed by `?`, `*` or a `{…}` count is left out (it may match zero times). Under `-i` only
 * ASCII characters that are not letters are kept, since case folding leaves exactly those alone. U+FFFD and surrogates
 * are left out, so the text's UTF-8 bytes are in every file whose decoded text holds the match.
 */
export function requiredLiteral(pattern: string, ignoreCase: boolean): string | undefined {
  if (pattern.includes('|')) return undefined
  let best = ''
  let run = ''
  /** Whether the last thing read was a character appended to `run` (a following quantifier applies to it). */
  let lastWasText = false
  const end = (): void => {
    if (run.length > best.length) best = run
    run = ''
    lastWasText = false
  }
  const text = (ch: string): void => {
    if (!keeps(ch, ignoreCase)) return end()
    run += ch
    lastWasText = true
  }
  let depth = 0
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]
    if (ch === '\\') {
      const next = pattern[i + 1] ?? ''
      i++
      if (depth > 0 || /[0-9A-Za-z]/.test(next) || next === '') end()
      else text(next)
    } else if (ch === '[') {
      i = classEnd(pattern, i)
      end()
    } else if (ch === '(') {
      depth++
      end()
    } else if (ch === ')') {
      depth = Math.max(0, depth - 1)
      end()
    } else if (ch === '?' || ch === '*') {
      if (lastWasText) run = run.slice(0, -1)
      end()
    } else if (ch === '{') {
      // `{n}`, `{n,}`, `{n,m}` is a quantifier (skipped whole); any other `{` is plain text, but none is kept.
      const quantifier = /^\{\d+(,\d*)?\}/.exec(pattern.slice(i))
      if (quantifier && lastWasText) run = run.slice(0, -1)
      if (quantifier) i += quantifier[0].length - 1
      end()
    } else if (ch === '+') {
      end()
    } else if (depth > 0 || '^$.}]'.includes(ch)) {
      end()
    } else text(ch)
  }
  end()
  return best || undefined
}

/** Index of the `]` closing the class opened at `open` (JavaScript: the first unescaped `]`), or the last index. */
function classEnd(pattern: string, open: number): number {
  for (let i = open + 1; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++
    else if (pattern[i] === ']') return i
  }
  return pattern.length - 1
}

function keeps(ch: string, ignoreCase: boolean): boolean {
  const code = ch.charCodeAt(0)
  if (code === 0xfffd || (code >= 0xd800 && code <= 0xdfff)) return false
  if (!ignoreCase) return true
  return code < 0x80 && !/[A-Za-z]/.test(ch)
}
