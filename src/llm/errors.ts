/** Why a model call failed. Each code has one sentence for a person (see `describe`) and a retry rule (see retry.ts). */
export type ModelErrorCode =
  | 'auth'
  | 'quota'
  | 'rate-limit'
  | 'context-too-long'
  | 'invalid-request'
  | 'reasoning-passback'
  | 'server'
  | 'transport'
  | 'timeout'
  | 'empty-response'
  | 'aborted'

/** A classified model failure. `message` is the one sentence a user reads; `detail` keeps the cause for logs. */
export class ModelError extends Error {
  readonly code: ModelErrorCode
  readonly status?: number
  readonly retryAfterMs?: number
  readonly requestId?: string
  readonly detail?: string

  constructor(
    code: ModelErrorCode,
    message: string,
    options: { status?: number; retryAfterMs?: number; requestId?: string; detail?: string } = {},
  ) {
    super(message)
    this.name = 'ModelError'
    this.code = code
    this.status = options.status
    this.retryAfterMs = options.retryAfterMs
    this.requestId = options.requestId
    this.detail = options.detail
  }

  /** Plain JSON for the session log. */
  toJSON(): { code: ModelErrorCode; message: string; status?: number; requestId?: string } {
    const out: { code: ModelErrorCode; message: string; status?: number; requestId?: string } = {
      code: this.code,
      message: this.message,
    }
    if (this.status !== undefined) out.status = this.status
    if (this.requestId !== undefined) out.requestId = this.requestId
    return out
  }
}
