import { setTimeout as sleep } from 'node:timers/promises'

/** Node's network error codes that mean the database went away or is not there yet. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'])

/**
 * PostgreSQL SQLSTATEs worth trying again: the connection classes (08), the server shutting down or starting
 * (57P01–57P03), a full connection table (53300) and a deadlock between two set-ups (40P01, e.g. two workers
 * creating the queue at once).
 */
const SERVER_CODES = new Set(['53300', '57P01', '57P02', '57P03', '40P01', '40001'])

/**
 * Messages of node-postgres for a connection lost mid-query or a pool that gave up connecting, and the sentences the
 * store makes of them (store/postgres/connection.ts), as a task process prints them.
 */
const LOST = /nothing is listening there|the server closed the connection|the server has too many connections|connection terminated|connection error|timeout exceeded when trying to connect|terminating connection|the database system is (starting up|shutting down)|too many (clients|connections)|deadlock detected|Connection ended|not queryable/i

/** True when the error (or one of its causes) means "the database was unreachable": the call may succeed later. */
export function isTransientDbError(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    const code = (cause as { code?: unknown }).code
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08'))) return true
    if (LOST.test(String((cause as { message?: unknown }).message ?? ''))) return true
  }
  return false
}

export interface RetryOptions {
  /** Stops retrying: the last error is thrown. */
  signal?: AbortSignal
  /** Gives up after this long, ms (default: never, while the signal allows). */
  withinMs?: number
  /** Told once per failed try, with what was being done. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void
}

/** Backoff between tries, ms: 100, 200, 400 … capped at 5 s, with jitter so workers do not retry in step. */
export function backoffMs(attempt: number): number {
  const base = Math.min(5000, 100 * 2 ** Math.min(attempt, 6))
  return Math.round(base / 2 + Math.random() * (base / 2))
}

/**
 * Runs `call` until it succeeds, waiting with backoff after each transient database error. Any other error, an
 * aborted signal or the time limit ends it with the error.
 */
export async function retryDb<T>(call: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const started = Date.now()
  for (let attempt = 0; ; attempt++) {
    try {
      return await call()
    } catch (error) {
      if (!isTransientDbError(error) || options.signal?.aborted) throw error
      const delay = backoffMs(attempt)
      if (options.withinMs !== undefined && Date.now() - started + delay > options.withinMs) throw error
      options.onRetry?.(error, attempt + 1, delay)
      await sleep(delay, undefined, { signal: options.signal }).catch(() => {
        // Aborted while waiting: the next pass throws the error.
      })
      if (options.signal?.aborted) throw error
    }
  }
}
