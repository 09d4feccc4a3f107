/** Wraps a command's action: any error it throws becomes one line on stderr (`rein: …`) and exit code 1. */
export function oneLineErrors<A extends unknown[]>(body: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await body(...args)
    } catch (error) {
      process.stderr.write(`rein: ${error instanceof Error ? error.message : String(error)}\n`)
      process.exitCode = 1
    }
  }
}
