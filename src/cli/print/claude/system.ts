import type { SessionEvent } from '../../../session/events.js'
import { MAX_RETRIES } from '../../../llm/retry.js'
import { eventUuid } from './ids.js'
import type { ApiRetryLine, CompactBoundaryLine } from './shapes.js'

/** Rein's model error codes (src/llm/errors.ts) by the names Claude Code gives API errors. */
const CLAUDE_ERROR: Record<string, ApiRetryLine['error']> = {
  auth: 'authentication_failed',
  quota: 'billing_error',
  'rate-limit': 'rate_limit',
  'context-too-long': 'invalid_request',
  'invalid-request': 'invalid_request',
  'reasoning-passback': 'invalid_request',
  server: 'server_error',
}

/** `llm/retry` as Claude Code's `system`/`api_retry`: which retry this is, of how many, after how long, and why. */
export function apiRetryLine(sessionId: string, event: SessionEvent<'llm/retry'>): ApiRetryLine {
  const { attempt, delayMs, error } = event.data
  return {
    type: 'system',
    subtype: 'api_retry',
    attempt,
    max_retries: MAX_RETRIES,
    retry_delay_ms: delayMs,
    error_status: typeof error.status === 'number' ? error.status : null,
    error: CLAUDE_ERROR[error.code] ?? 'unknown',
    session_id: sessionId,
    uuid: eventUuid(sessionId, event.seq),
  }
}

/**
 * A compaction that replaced part of the surface, as Claude Code's `system`/`compact_boundary`. `pre_tokens` is the
 * prompt size of the last response before it (what the model was last sent); a compaction Rein started on its own
 * (`auto`, `overflow`) is `auto`.
 */
export function compactBoundaryLine(sessionId: string, event: SessionEvent<'compaction/end'>, trigger: string, preTokens: number): CompactBoundaryLine {
  return {
    type: 'system',
    subtype: 'compact_boundary',
    compact_metadata: { trigger: trigger === 'manual' ? 'manual' : 'auto', pre_tokens: preTokens },
    session_id: sessionId,
    uuid: eventUuid(sessionId, event.seq),
  }
}
