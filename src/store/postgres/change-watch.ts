import type { Pool } from 'pg'
import { cwdKey } from '../home.js'
import type { SummaryListener, SummaryWatch } from '../store.js'

/** How often the change query runs while a listing is watched (ms). */
export const CHANGE_QUERY_MS = 1_000

/**
 * The PostgreSQL store's listing watch: one small query a second, instead of re-listing.
 *
 * What holds:
 * - The query reads a fingerprint of the listing, not the listing: how many sessions there are and how many records
 *   they hold (every append, create and delete changes it), and the tokens of the unexpired leases (a session taken,
 *   let go, taken over or expired changes it). `changed()` is called when the fingerprint differs from the last one
 *   read, never for the first.
 * - Queries never overlap: the next is scheduled when the last has answered.
 * - A query that fails (the database restarting) is not a failure of the watch: the next one asks again, and the
 *   listing itself reports an unreachable store. `failed()` is never called.
 * - NOTIFY was not used: a trigger that notifies on every append would serialize the commits of every writer of the
 *   fleet on PostgreSQL's notification queue lock.
 */
export function watchPostgresSummaries(pool: Pool, cwd: string | 'all', listener: SummaryListener, everyMs = CHANGE_QUERY_MS): SummaryWatch {
  const scoped = cwd !== 'all'
  const text = `SELECT count(*)::text AS sessions, coalesce(sum(s.records), 0)::text AS records,
      coalesce(sum(hashtext(l.token::text)) FILTER (WHERE l.expires_at >= now()), 0)::text AS leases
    FROM rein_sessions s LEFT JOIN rein_leases l ON l.session_id = s.id ${scoped ? 'WHERE s.cwd_key = $1' : ''}`
  const params = scoped ? [cwdKey(cwd)] : []
  let last: string | undefined
  let closed = false
  let timer: NodeJS.Timeout | undefined
  const ask = async (): Promise<void> => {
    try {
      const row = (await pool.query<{ sessions: string; records: string; leases: string }>(text, params)).rows[0]
      const fingerprint = `${row.sessions}:${row.records}:${row.leases}`
      if (last !== undefined && fingerprint !== last && !closed) listener.changed()
      last = fingerprint
    } catch {
      // The database is out of reach for now: the next query asks again, and the listing says what is wrong.
    }
    if (!closed) timer = setTimeout(() => void ask(), everyMs).unref()
  }
  void ask()
  return {
    how: 'query',
    close: () => {
      closed = true
      clearTimeout(timer)
    },
  }
}
