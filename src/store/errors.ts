/** What went wrong, for code that reacts to it; the message is the one sentence a person reads. */
export type SessionErrorCode =
  | 'not-found'
  | 'ambiguous'
  | 'damaged'
  | 'version'
  | 'unreadable'
  | 'exists'
  | 'closed'
  | 'invalid-fork'

/** A failure of the session log or its store that reaches a person: a code and one sentence saying what to do. */
export class SessionError extends Error {
  override readonly name = 'SessionError'
  constructor(
    readonly code: SessionErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** The error for a damaged line: names the file (or store location) and the 1-based line number. */
export function damagedLine(location: string, line: number, what: string): SessionError {
  return new SessionError(
    'damaged',
    `session file ${location} line ${line} ${what}; Rein left the file untouched, so repair or remove that line (or move the file aside) and try again.`,
  )
}
