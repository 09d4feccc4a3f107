import { SessionError } from './errors.js'
import { cwdKey } from './home.js'
import type { SessionStore, SessionSummary } from './store.js'

/**
 * The sessions of one working directory, or of all of them, newest activity first. Reads each session's header
 * and scans line starts (the JSONL store keeps an index so unchanged files are not read at all); never parses a
 * whole log.
 */
export async function listSessions(store: SessionStore, cwd: string | 'all'): Promise<SessionSummary[]> {
  const summaries = await store.summaries(cwd)
  return summaries.sort((a, b) => b.updatedAt - a.updatedAt || a.id.localeCompare(b.id))
}

/**
 * The full id of the one stored session whose id starts with `prefix`. An exact id always wins; when several match
 * and exactly one of them belongs to `cwd`, that one is chosen. Otherwise throws a `SessionError` that says what to
 * type instead.
 */
export async function resolveSessionId(store: SessionStore, prefix: string, cwd?: string): Promise<string> {
  const wanted = prefix.trim()
  if (!wanted) throw new SessionError('not-found', 'no session id given; pass an id or a unique prefix from `rein sessions list`.')
  const ids = await store.ids()
  if (ids.some((stored) => stored.id === wanted)) return wanted
  let matches = ids.filter((stored) => stored.id.startsWith(wanted))
  if (matches.length > 1 && cwd !== undefined) {
    const key = cwdKey(cwd)
    const here = matches.filter((stored) => stored.cwdKey === key)
    if (here.length === 1) matches = here
  }
  if (matches.length === 1) return matches[0].id
  if (matches.length === 0) {
    throw new SessionError('not-found', `no session id starts with "${wanted}"; run \`rein sessions list --all\` to see the ids.`)
  }
  const shown = matches.slice(0, 4).map((stored) => stored.id.slice(0, wanted.length + 4))
  throw new SessionError(
    'ambiguous',
    `"${wanted}" matches ${matches.length} sessions (${shown.join(', ')}${matches.length > 4 ? ', …' : ''}); type more of the id.`,
  )
}
