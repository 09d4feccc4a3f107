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
  | 'busy'
  | 'write-failed'

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

/** Why a write failed, in words, from the system error code. */
function writeProblem(error: unknown): string {
  let cause: unknown = error
  while (cause instanceof SessionError && cause.code !== 'busy' && cause.cause !== undefined) cause = cause.cause
  switch ((cause as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return 'disk full'
    case 'EROFS':
      return 'the file system is read-only'
    case 'EIO':
      return 'an input/output error'
    case 'ENOENT':
      return 'its directory was removed'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    default:
      return cause instanceof SessionError && cause.code === 'busy' ? 'another process took over the session' : 'a write error'
  }
}

/**
 * The end of a run whose log could not be written: one sentence saying what happened, what is safe, and how to go
 * on. `lastSaved` is the seq of the last durable event (-1 when only the header is).
 */
export function writeFailed(id: string, lastSaved: number, error: unknown): SessionError {
  const problem = writeProblem(error)
  const remedy = problem === 'disk full' ? 'free space and run' : 'fix that and run'
  const saved = lastSaved >= 0 ? `everything up to event ${lastSaved} is saved` : 'only its header is saved'
  return new SessionError(
    'write-failed',
    `Rein could not write the session log (${problem}); ${saved}; ${remedy} rein --resume ${id}.`,
    { cause: error },
  )
}
