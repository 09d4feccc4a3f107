/**
 * The one token budget of the model's listings of prompt files, in every request: the `task` tool's agent types (in
 * its description, fixed when the session opens) and the skills reminder. Estimated as UTF-8 bytes / 4. The agent
 * types are listed first and take at most `AGENT_LISTING_CAP`; the skills get what is left. Whatever does not fit is
 * named in the listing (as many names as fit in `LEFT_OUT_NAMES_TOKENS`) with where the rest can be found.
 */
export const PROMPT_LISTING_TOKEN_BUDGET = 2000
export const AGENT_LISTING_CAP = 400
/** Tokens of a listing's tail spent naming the entries left out. */
export const LEFT_OUT_NAMES_TOKENS = 60

export const estimateTokens = (text: string): number => Math.ceil(Buffer.byteLength(text, 'utf8') / 4)

/**
 * A description as a listing shows it: `<example>` blocks (published agent files hold several) and their
 * `<commentary>` left out, whitespace folded, cut at `max` characters on a word.
 */
export function listingSummary(description: string, max = 160): string {
  const text = description
    .replace(/<example>[\s\S]*?(<\/example>|$)/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\s*Examples?:?$/i, '')
  if (text.length <= max) return text
  const cut = text.slice(0, max - 1)
  return `${cut.slice(0, cut.lastIndexOf(' ') > max / 2 ? cut.lastIndexOf(' ') : cut.length)}…`
}

/** The entries (name and its line) listed in order while they fit `budget` tokens; the names of the rest. */
export function fitListing(entries: readonly { name: string; line: string }[], budget: number): { lines: string[]; listed: string[]; left: string[]; tokens: number } {
  const lines: string[] = []
  let tokens = 0
  for (const entry of entries) {
    const cost = estimateTokens(entry.line)
    if (tokens + cost > budget) break
    lines.push(entry.line)
    tokens += cost
  }
  return { lines, listed: entries.slice(0, lines.length).map((e) => e.name), left: entries.slice(lines.length).map((e) => e.name), tokens }
}

/** `12 more agents, not listed: a, b, c and 9 others` — as many names as fit `LEFT_OUT_NAMES_TOKENS`. */
export function leftOutSentence(noun: { one: string; many: string }, left: readonly string[]): string {
  const shown: string[] = []
  let tokens = 0
  for (const name of left) {
    if (tokens + estimateTokens(`${name}, `) > LEFT_OUT_NAMES_TOKENS) break
    shown.push(name)
    tokens += estimateTokens(`${name}, `)
  }
  const others = left.length - shown.length
  const names = others ? `${shown.join(', ')}${shown.length ? ' and ' : ''}${others} other${others === 1 ? '' : 's'}` : shown.join(', ')
  return `${left.length} more ${left.length === 1 ? noun.one : noun.many}, not listed: ${names}`
}
