import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Pool } from 'pg'
import { busyError, processExists, type LeaseOwner, type SessionLease } from '../lease.js'

/**
 * The writer lease kept in the database: one `rein_leases` row per held session, with the owner, a random token
 * and an expiry. It keeps the invariants of `../lease.ts`:
 * - The row is taken with one statement that inserts it, or replaces it only when it has expired, so two takers
 *   can never both win.
 * - Every append checks the token in the same statement that inserts the records (see `store.ts`), so a writer
 *   whose lease was taken over writes nothing, even if it has not noticed yet.
 * - A live holder pushes the expiry forward every `staleMs / 4`; a holder that died (killed, machine lost) stops
 *   doing so and its lease is taken over once it expires, or at once when it ran on this host and its pid is gone.
 * `held()` is what this process last learnt (at take, refresh or write); the database is the authority.
 */
export async function takePostgresLease(pool: Pool, id: string, staleMs: number): Promise<SessionLease> {
  const owner: LeaseOwner = { pid: process.pid, host: hostname(), startedAt: Date.now() }
  const token = randomUUID()
  const taken = await pool.query(
    `INSERT INTO rein_leases (session_id, token, owner, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4))
     ON CONFLICT (session_id) DO UPDATE SET token = EXCLUDED.token, owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
       WHERE rein_leases.expires_at < now()
     RETURNING token`,
    [id, token, owner, staleMs / 1000],
  )
  if (taken.rowCount !== 1) {
    const holder = await pool.query<{ token: string; owner: LeaseOwner }>(
      'SELECT token, owner FROM rein_leases WHERE session_id = $1',
      [id],
    )
    const row = holder.rows[0]
    const deadHere = row && row.owner.host === hostname() && !processExists(row.owner.pid)
    // A holder on this host whose process is gone cannot refresh: take its row over, but only if it is unchanged.
    const stolen = deadHere
      ? await pool.query(
          `UPDATE rein_leases SET token = $3, owner = $4, expires_at = now() + make_interval(secs => $5)
           WHERE session_id = $1 AND token = $2`,
          [id, row.token, token, owner, staleMs / 1000],
        )
      : undefined
    if (stolen?.rowCount !== 1) throw busyError(id, row?.owner)
  }
  return new PostgresLease(pool, id, token, owner, staleMs)
}

/** True when a live process holds session `id`'s lease row: unexpired, and not left by a dead process on this host. */
export async function postgresLeaseIsHeld(pool: Pool, id: string): Promise<boolean> {
  const found = await pool.query<{ owner: LeaseOwner }>('SELECT owner FROM rein_leases WHERE session_id = $1 AND expires_at >= now()', [id])
  const owner = found.rows[0]?.owner
  return owner !== undefined && !(owner.host === hostname() && !processExists(owner.pid))
}

export class PostgresLease implements SessionLease {
  private released = false
  private lost = false
  private readonly timer: NodeJS.Timeout

  constructor(
    private readonly pool: Pool,
    private readonly id: string,
    /** The proof of holding: appends and refreshes match it. */
    readonly token: string,
    readonly owner: LeaseOwner,
    private readonly staleMs: number,
  ) {
    this.timer = setInterval(() => void this.refresh(), Math.max(50, Math.floor(staleMs / 4)))
    this.timer.unref()
  }

  held(): boolean {
    return !this.released && !this.lost
  }

  /** Told by a write that found the token replaced: the lease was taken over. */
  markLost(): void {
    this.lost = true
  }

  /** Seconds the lease lasts from a refresh or write. */
  get seconds(): number {
    return this.staleMs / 1000
  }

  async release(): Promise<void> {
    if (this.released) return
    this.released = true
    clearInterval(this.timer)
    await this.pool.query('DELETE FROM rein_leases WHERE session_id = $1 AND token = $2', [this.id, this.token]).catch(() => {
      // The database is out of reach: the row expires on its own after the stale time.
    })
  }

  private async refresh(): Promise<void> {
    if (!this.held()) return
    try {
      const result = await this.pool.query(
        'UPDATE rein_leases SET expires_at = now() + make_interval(secs => $3) WHERE session_id = $1 AND token = $2',
        [this.id, this.token, this.seconds],
      )
      if (result.rowCount !== 1 && !this.released) this.lost = true
    } catch {
      // A failed refresh only brings the expiry closer; the next tick tries again, and writes check the token.
    }
  }
}
