import type pg from 'pg'

/**
 * Notices a task whose `rein -p` stopped answering (SIGSTOPped, swapped out, deadlocked) in the time of its session
 * lease, not after its timeout: a live process refreshes its writer lease in `rein_leases` every quarter of the stale
 * time (src/store/postgres/lease.ts), so a lease this attempt saw live and then saw expire belongs to a frozen process.
 * A lease that was already expired when the attempt began is a killed predecessor's, which the new process takes over:
 * it says nothing about this attempt.
 */
export class HungTask {
  private current = new AbortController()
  private seenLive = false

  /** A fresh signal for the next attempt, aborted (with the sentence why) when that attempt's process is frozen. */
  next(): AbortSignal {
    this.current = new AbortController()
    this.seenLive = false
    return this.current.signal
  }

  /** One look at the session's lease; never throws (an unreachable database is asked again next time). */
  async check(pool: pg.Pool, sessionId: string): Promise<void> {
    try {
      const { rows } = await pool.query<{ late: string }>('SELECT extract(epoch FROM now() - expires_at) AS late FROM rein_leases WHERE session_id = $1', [sessionId])
      if (rows.length === 0) return
      const late = Number(rows[0].late)
      if (late <= 0) this.seenLive = true
      else if (this.seenLive && !this.current.signal.aborted) {
        this.current.abort(`its rein process stopped answering (its session lease expired ${late.toFixed(1)} s ago), so it was killed`)
      }
    } catch {
      // Asked again on the next tick.
    }
  }
}
