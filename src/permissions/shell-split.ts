import { parse, type ParseEntry } from 'shell-quote'

/** One simple command of a compound command line, as words (quotes removed) and those words joined by spaces. */
export interface CommandPart {
  words: string[]
  text: string
}

/**
 * A command line split at `&&`, `||`, `;`, `|`, `&` and newlines. `opaque` is set when some of what bash would run
 * cannot be seen in the parts: command substitution (`$(…)`, backticks), process substitution, subshells, here
 * documents, a command name taken from a variable, output redirected to a file, or a Unicode space character (see
 * `UNICODE_SPACE`: the words the parser sees are not the words bash runs). An opaque command is never
 * allowed by rules, only by mode or an explicit bare `Bash` rule; deny rules still apply to the parts that are seen.
 */
export interface SplitCommand {
  parts: CommandPart[]
  opaque: boolean
  /** Every redirection with a file target (`< in`, `> out`, `2>&1` excluded), in order: paths the command touches. */
  redirects: Redirect[]
  /** Words bash would expand as globs (`*`, `?`, `[…]`), as written. */
  globs: string[]
  /** Words (arguments or redirection targets) in which bash expands a variable (`$HOME`, `${HOME}`, `"$HOME/x"`). */
  expansions: string[]
}

/** Marks where shell-quote saw a variable, so quoting decides (`'$1'` is literal, `"$1"` is not); removed again. */
const MARK = '\uE000'
const unmark = (s: string) => s.split(MARK).join('')

export interface Redirect {
  op: string
  target: string
}

/**
 * Space characters other than ASCII space, tab and line breaks (no-break space U+00A0, U+1680, U+2000–U+200A,
 * U+2028, U+2029, U+202F, U+205F, U+3000, the byte-order mark U+FEFF). The parser splits words at them; bash does
 * not, so `echo<U+00A0>hi` would look like `echo hi` to a rule while bash runs another command.
 */
export const UNICODE_SPACE = /[\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/

const SEPARATORS = new Set(['&&', '||', ';', '|', '&', '|&', ';;'])
const OUTPUT_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>'])

export function splitCommand(command: string): SplitCommand {
  // A backslash-newline is a line continuation; any other newline separates commands.
  const joined = command.replace(/\\\r?\n/g, '')
  let opaque = /\$\(|`|<\(|>\(/.test(joined) || UNICODE_SPACE.test(joined)
  let tokens: ParseEntry[]
  try {
    // Variables stay as written (`$HOME`): the policy judges the text the model wrote, not our environment.
    tokens = parse(joined.replace(/\r?\n/g, ' ; '), (name) => `${MARK}$${name}`)
  } catch {
    return { parts: [{ words: [joined], text: joined.trim() }], opaque: true, redirects: [], globs: [], expansions: [] }
  }
  const parts: CommandPart[] = []
  const redirects: Redirect[] = []
  const globs: string[] = []
  const expansions: string[] = []
  const word = (raw: string): string => {
    const plain = unmark(raw)
    if (plain !== raw) expansions.push(plain)
    return plain
  }
  let words: string[] = []
  const endPart = () => {
    if (words.length) parts.push({ words, text: words.join(' ') })
    words = []
  }
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]
    if (typeof token === 'string') {
      const plain = word(token)
      words.push(plain)
      if (/\[[^\]]+\]/.test(plain)) globs.push(plain)
      continue
    }
    if ('comment' in token) {
      // shell-quote reads a comment to the end of the input, past the newlines we turned into `;`.
      if (/\n/.test(joined)) opaque = true
      break
    }
    if (token.op === 'glob') {
      const plain = word(token.pattern)
      words.push(plain)
      globs.push(plain)
      continue
    }
    const op = token.op as string
    if (SEPARATORS.has(op)) {
      endPart()
      continue
    }
    const next = tokens[i + 1]
    const target = typeof next === 'string' ? word(next) : next
    const fdWord = words.length > 1 && /^\d+$/.test(words[words.length - 1])
    if (OUTPUT_REDIRECTS.has(op) || op === '>&' || op === '<&' || op === '<') {
      if (typeof target !== 'string') {
        opaque = true
        continue
      }
      i++
      if (fdWord) words.pop()
      const duplication = (op === '>&' || op === '<&') && /^(\d+|-)$/.test(target)
      if (!duplication) redirects.push({ op, target })
      const harmless = op === '<' || target === '/dev/null' || ((op === '>&' || op === '<&') && /^(\d+|-)$/.test(target))
      if (!harmless) opaque = true
      continue
    }
    // Subshells, here documents, process substitution and anything shell-quote reports that we do not model.
    opaque = true
  }
  endPart()
  if (parts.some((p) => p.words[0].includes('$'))) opaque = true
  return { parts, opaque, redirects, globs, expansions }
}
