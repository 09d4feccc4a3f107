/** A mistake in how Rein was invoked: exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/**
 * Reports an error that reaches a person as one sentence and sets the exit code: 2 for usage, 1 otherwise.
 * The stack is kept for `REIN_DEBUG=1`.
 */
export function fail(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error)
  process.stderr.write(`rein: ${message}\n`)
  if (process.env.REIN_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`)
  process.exitCode = error instanceof UsageError ? 2 : 1
}
