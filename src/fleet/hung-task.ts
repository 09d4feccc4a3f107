import { hostname } from 'node:os'
import type pg from 'pg'

/**
 * Notices a task whose `rein -p` stopped answering (SIGSTOPped, swapped out, deadlocked) in the time of its session
 * lease, not after its timeout: a live process refreshes its writer lease in `rein_leases` every quarter of the stale
 * time (src/store/postgres/lease.ts), and the lease names its owner's host and pid. An expired lease whose owner is the
 * attempt's own process on this host belongs to a frozen process. A lease of another process (a killed predecessor's,
 * which the new process takes over) says nothing about this attempt.
 */
export class HungTask {
  private current = new AbortController()
  private pid: number | undefined

  /** A fresh signal for the next attempt, aborted (with the sentence why) when that attempt's process is frozen. */
  next(): { signal: AbortSignal; spawned: (pid: number) => void } {
    this.current = new AbortController()
    this.pid = undefined
    const controller = this.current
    return { signal: controller.signal, spawned: (pid) => void (this.current === controller && (this.pid = pid)) }
  }

  /** One look at the session's lease; never throws (an unreachable database is asked again next time). */
  async check(pool: pg.Pool, sessionId: string): Promise<void> {
    const pid = this.pid
    if (pid === undefined || this.current.signal.aborted) return
    try {
      const { rows } = await pool.query<{ late: string; pid: string | null; host: string | null }>(
        `SELECT extract(epoch FROM now() - expires_at) AS late, owner->>'pid' AS pid, owner->>'host' AS host FROM rein_leases WHERE session_id = $1`,
        [sessionId],
      )
      const row = rows[0]
      if (!row || Number(row.pid) !== pid || row.host !== hostname()) return
      const late = Number(row.late)
      if (late > 0 && this.pid === pid && !this.current.signal.aborted) {
        this.current.abort(`its rein process stopped answering (its session lease expired ${late.toFixed(1)} s ago), so it was killed`)
      }
    } catch {
      // Asked again on the next tick.
    }
  }
}
