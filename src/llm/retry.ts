import type { ModelError, ModelErrorCode } from './errors.js'

/** Retries after the first attempt, so at most six HTTP attempts per model request. */
export const MAX_RETRIES = 5
export const BASE_DELAY_MS = 500
export const MAX_DELAY_MS = 10_000

/** Failures that a later identical request may not meet. Auth, quota and bad requests fail the same way again. */
const RETRYABLE: ReadonlySet<ModelErrorCode> = new Set(['rate-limit', 'server', 'transport', 'timeout', 'empty-response'])

/**
 * How long to wait before retry number `retriesSoFar + 1`, in milliseconds, or null to give up. The delay doubles
 * from 0.5 s up to 10 s with ±25 % jitter (kept within those bounds). A `Retry-After` the provider sent replaces the
 * computed delay; one beyond the cap is waited as the cap, since giving up would end a long turn on one busy minute.
 * `random` returns [0, 1) and is injectable so tests are exact.
 */
export function retryDelay(error: ModelError, retriesSoFar: number, random: () => number = Math.random): number | null {
  if (!RETRYABLE.has(error.code) || retriesSoFar >= MAX_RETRIES) return null
  if (error.retryAfterMs !== undefined) return Math.min(Math.max(0, error.retryAfterMs), MAX_DELAY_MS)
  const base = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retriesSoFar)
  const jittered = base * (0.75 + 0.5 * random())
  return Math.round(Math.min(MAX_DELAY_MS, Math.max(BASE_DELAY_MS, jittered)))
}
