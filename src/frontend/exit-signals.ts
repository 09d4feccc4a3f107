/** The signals that end a run, and the exit status each one ends it with (128 + the signal number). */
export const EXIT_SIGNALS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const
export type ExitSignal = keyof typeof EXIT_SIGNALS

/** What `onExitSignals` hands back: which signal arrived first, if any, and how to stop listening. */
export interface ExitSignals {
  /** The first signal received, or undefined. */
  readonly received: ExitSignal | undefined
  /** The status the run must exit with when a signal arrived. */
  readonly code: number | undefined
  dispose(): void
}

/**
 * Every signal ends a run the way Ctrl-C does: the first SIGINT, SIGTERM or SIGHUP calls `stop` once (which cancels
 * the turn; the caller then closes the agent, killing tool process groups and MCP servers, committing the turn's end
 * and releasing the lease) and the run exits with 130, 143 or 129. A second signal exits at once with its status.
 *
 * After SIGHUP the terminal is gone, so failed writes to stdout and stderr are dropped instead of crashing the
 * shutdown that keeps the log whole.
 */
export function onExitSignals(stop: (signal: ExitSignal) => void): ExitSignals {
  let received: ExitSignal | undefined
  const handlers = new Map<ExitSignal, () => void>()
  for (const signal of Object.keys(EXIT_SIGNALS) as ExitSignal[]) {
    const handler = (): void => {
      if (received) process.exit(EXIT_SIGNALS[signal])
      received = signal
      if (signal === 'SIGHUP') {
        // The terminal is gone: output has nowhere to go, and an EPIPE/EIO must not interrupt the shutdown.
        process.stdout.on('error', () => {})
        process.stderr.on('error', () => {})
      }
      stop(signal)
    }
    handlers.set(signal, handler)
    process.on(signal, handler)
  }
  return {
    get received() {
      return received
    },
    get code() {
      return received ? EXIT_SIGNALS[received] : undefined
    },
    dispose() {
      for (const [signal, handler] of handlers) process.off(signal, handler)
    },
  }
}
