import type { Dialect } from './definitions.js'

/** A compiled matcher, or the one sentence saying why the matcher cannot be used. */
export type CompiledMatcher = { test(target: string | undefined): boolean } | { error: string }

const matchAll = { test: () => true }

/** A Claude Code matcher made only of these characters is an exact name or a `|`-list of names. */
const PLAIN_NAMES = /^[A-Za-z0-9_|]+$/

/**
 * Reads a matcher the way the peers do. Absent, empty and `*` match everything. In the Claude Code format a string
 * of letters, digits, `_` and `|` is an exact name or `|`-list (`Edit|Write`); anything else is a regular
 * expression. In the Codex format it is always a regular expression. Regular expressions are unanchored, as in
 * both peers, so `mcp__github` matches every tool of that server. A target of `undefined` (an event without one)
 * matches every matcher.
 */
export function compileMatcher(raw: string, dialect: Dialect): CompiledMatcher {
  if (raw === '' || raw === '*') return matchAll
  if (dialect === 'claude' && PLAIN_NAMES.test(raw)) {
    const names = new Set(raw.split('|').filter((name) => name !== ''))
    return { test: (target) => target === undefined || names.has(target) }
  }
  let pattern: RegExp
  try {
    pattern = new RegExp(raw)
  } catch (error) {
    return { error: `the matcher "${raw}" is not a valid regular expression (${(error as Error).message})` }
  }
  return { test: (target) => target === undefined || pattern.test(target) }
}
