import { hostname } from 'node:os'
import type { Pool, PoolClient } from 'pg'
import { SessionError } from '../errors.js'
import { busyError, processExists, type LeaseOwner } from '../lease.js'
import { inTransaction } from './connection.js'

/**
 * Deletes session `id` from the PostgreSQL store in one transaction. What holds:
 * - All or nothing: the session row, its records (`rein_events`) and its lease row (`rein_leases`) go together, by
 *   the cascade of one `DELETE`, or nothing changes.
 * - The writer lease decides, as for every store: while a live process holds it (unexpired, and not left by a dead
 *   process on this host) the session is refused whole with a `busy` SessionError naming the holder. The lease row is
 *   locked for the transaction, so no refresh, take-over or append can slip in between the check and the delete: an
 *   append's lease check waits for the commit and then finds no lease.
 * - A fleet task that still means to run the session (its `rein_batch_tasks` row is `queued` or `running`) keeps it:
 *   refused as `busy`, naming the task. A finished task keeps its row (status, result, usage) as the batch's record;
 *   its `session_id` then names a deleted session, and a retry of that task starts it afresh under the same id.
 * - Sessions forked from it, or its subagents, keep their own copies of everything they took and are untouched.
 * - An unknown id is a `not-found` SessionError; nothing is written.
 */
export async function removePostgresSession(pool: Pool, id: string, location: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    // Locks the session row: a second remove (or a create's lease take through the foreign key) waits for this one.
    const found = await client.query('SELECT 1 FROM rein_sessions WHERE id = $1 FOR UPDATE', [id])
    if (found.rowCount !== 1) {
      throw new SessionError('not-found', `no session ${id} in ${location}; run \`rein sessions list --all\` to see the ids.`)
    }
    const holder = await liveHolder(client, id)
    if (holder) throw busyError(id, holder)
    const task = await client.query<{ batch: string; task_id: string; status: string }>(
      `SELECT batch, task_id, status FROM rein_batch_tasks WHERE session_id = $1 AND status IN ('queued', 'running')`,
      [id],
    )
    const owning = task.rows[0]
    if (owning) {
      throw new SessionError(
        'busy',
        `Session ${id} belongs to fleet task ${owning.batch}/${owning.task_id}, which is ${owning.status}; cancel the batch (rein batch cancel ${owning.batch}) before deleting it.`,
        { cause: { sessionId: id } },
      )
    }
    await client.query('DELETE FROM rein_sessions WHERE id = $1', [id])
  })
}

/** The owner of session `id`'s lease row when a live process holds it, locking the row until the transaction ends. */
async function liveHolder(client: PoolClient, id: string): Promise<LeaseOwner | undefined> {
  const row = await client.query<{ owner: LeaseOwner; live: boolean }>(
    'SELECT owner, expires_at >= now() AS live FROM rein_leases WHERE session_id = $1 FOR UPDATE',
    [id],
  )
  const lease = row.rows[0]
  if (!lease?.live) return undefined
  const deadHere = lease.owner.host === hostname() && !processExists(lease.owner.pid)
  return deadHere ? undefined : lease.owner
}
