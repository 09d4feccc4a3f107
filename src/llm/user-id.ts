import { createHash } from 'node:crypto'
import { hostname, userInfo } from 'node:os'
import { ModelError } from './errors.js'

/**
 * DeepSeek's `user_id` (quick_start/rate_limit, "user_id isolation"): the end user a request is made for, which
 * DeepSeek uses to isolate content-safety handling, the KV cache and scheduling (per-id concurrency) within one
 * account. At most 512 bytes of `[a-zA-Z0-9_-]`, and never personal data.
 *
 * Sent as `user_id` on the chat wire and `metadata.user_id` on the Anthropic wire, from the logged header's config
 * (`ModelConfig.userId`), so the log alone reproduces the request. Cache cost: the id is part of the body but not of
 * the prompt; a new id starts a new KV-cache partition, so it must stay the same across a session's requests.
 */
const USER_ID = /^[A-Za-z0-9_-]{1,512}$/

export function isValidUserId(value: unknown): value is string {
  return typeof value === 'string' && USER_ID.test(value)
}

/** Throws one sentence naming where the bad id came from (`userId` in settings, the agent's config…). */
export function checkedUserId(value: unknown, where: string): string {
  if (isValidUserId(value)) return value
  throw new ModelError(
    'invalid-request',
    `The ${where} must be 1 to 512 letters, digits, "_" or "-" (DeepSeek's user_id); got ${JSON.stringify(value)?.slice(0, 80)}.`,
  )
}

let machineUser: string | undefined

/**
 * The default id: stable for one OS user on one machine, and not personal data — a hash of the host name and the
 * user name (uid when there is no name), so DeepSeek can tell this user's requests apart without learning who it is.
 */
export function defaultUserId(): string {
  if (machineUser === undefined) {
    let user: string
    try {
      user = userInfo().username
    } catch {
      // No passwd entry for this uid (some containers): the uid still tells users of this machine apart.
      user = String(process.getuid?.() ?? '')
    }
    machineUser = `rein-${createHash('sha256').update(`${hostname()}\0${user}`).digest('hex').slice(0, 32)}`
  }
  return machineUser
}
