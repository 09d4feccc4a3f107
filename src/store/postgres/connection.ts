import type { Pool, PoolClient } from 'pg'
import { SessionError } from '../errors.js'

/** The store's URL as a person may see it: without the password. */
export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    // Not a URL at all; the driver will refuse it and the caller reports that. Show nothing that could be a secret.
    return 'the PostgreSQL store'
  }
}

/** Server error codes a person can act on (PostgreSQL's SQLSTATE), with what to do. */
const SERVER_PROBLEMS: Record<string, string> = {
  '28P01': 'the password was refused; check the user and password in the store URL',
  '28000': 'the server refused this user; check the user in the store URL and the server\'s pg_hba.conf',
  '3D000': 'the database does not exist; create it (createdb) or fix its name in the store URL',
  '42501': 'the user may not create or change the store\'s tables; grant it rights on the database',
  '53300': 'the server has too many connections; lower --concurrency or raise max_connections',
}

/** Network failures, from Node's error codes. */
const NETWORK_PROBLEMS: Record<string, string> = {
  ECONNREFUSED: 'nothing is listening there; start the server or fix the host and port',
  ENOTFOUND: 'the host name does not resolve; fix the host in the store URL',
  ETIMEDOUT: 'the connection timed out; check the host, port and firewall',
  ECONNRESET: 'the server closed the connection; check that it is running and try again',
}

/**
 * A failure to reach or use the database as one sentence naming the store (without its password). SessionErrors
 * pass through unchanged; so does anything that is not a connection or permission problem.
 */
export function connectionError(error: unknown, location: string): unknown {
  if (error instanceof SessionError) return error
  const code = (error as { code?: unknown } | null)?.code
  const problem = typeof code === 'string' ? (SERVER_PROBLEMS[code] ?? NETWORK_PROBLEMS[code]) : undefined
  if (problem) return new SessionError('unreadable', `cannot use the session store at ${location}: ${problem}.`, { cause: error })
  if (error instanceof TypeError || /invalid url|connection string/i.test(String((error as Error)?.message))) {
    return new SessionError('unreadable', `the session store URL is not a valid postgres:// URL; write it as postgres://user:password@host:5432/database.`, {
      cause: error,
    })
  }
  return error
}

/**
 * Runs `work` in one transaction on a client of its own: committed when `work` returns, rolled back when it throws
 * (and the error passed on). A broken connection's rollback is not awaited: the server rolls back itself.
 *
 * A client taken from the pool has no `error` listener of the pool's while it is held, and node-postgres emits the
 * server's "terminating connection" on the client when no query is running (between two of `work`'s queries): with
 * no listener of ours that is an uncaught exception that ends the process. The listener keeps it, and the next query
 * fails with it instead; the broken client is released with the error so the pool discards it.
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  let broken: Error | undefined
  const onError = (error: Error): void => {
    broken ??= error
  }
  client.on('error', onError)
  try {
    await client.query('BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch((rollback: Error) => {
      // The connection broke: the server rolls the transaction back itself.
      broken ??= rollback
    })
    throw error
  } finally {
    client.off('error', onError)
    client.release(broken)
  }
}
