/**
 * The argument text of `/name args` as a command's body sees it: `$ARGUMENTS` is the whole text as typed (trimmed),
 * `$1`…`$9` are its words. Words split at spaces and newlines; quotes group (`"two words"`, `'it''s'` is not special),
 * a backslash keeps the next character. An unclosed quote runs to the end. A missing word is empty.
 */
export function splitArguments(text: string): string[] {
  const words: string[] = []
  let current = ''
  let started = false
  let quote: '"' | "'" | undefined
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (quote) {
      if (ch === quote) quote = undefined
      else if (ch === '\\' && quote === '"' && i + 1 < text.length && (text[i + 1] === '"' || text[i + 1] === '\\')) current += text[++i]
      else current += ch
      continue
    }
    if (ch === '"' || ch === "'") {
      quote = ch
      started = true
    } else if (ch === '\\' && i + 1 < text.length) {
      current += text[++i]
      started = true
    } else if (/\s/.test(ch)) {
      if (started) words.push(current)
      current = ''
      started = false
    } else {
      current += ch
      started = true
    }
  }
  if (started) words.push(current)
  return words
}

const PLACEHOLDER = /\$(ARGUMENTS|[1-9])(?!\d)/g

/**
 * The body with its placeholders filled. `$10` and beyond are left as written (only nine positions exist). A body that
 * uses no placeholder but is given arguments gets them appended as `ARGUMENTS: …`, as Claude Code does, so nothing the
 * user typed is dropped.
 */
export function substituteArguments(body: string, args: string): string {
  const all = args.trim()
  const words = splitArguments(all)
  let used = false
  const filled = body.replace(PLACEHOLDER, (_, which: string) => {
    used = true
    return which === 'ARGUMENTS' ? all : (words[Number(which) - 1] ?? '')
  })
  if (used || !all) return filled
  return `${filled.replace(/\s*$/, '')}\n\nARGUMENTS: ${all}`
}
