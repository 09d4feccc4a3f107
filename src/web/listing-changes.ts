import type { SessionStore, SummaryWatch } from '../store/store.js'

/**
 * Tells the open streams (the list's, and a session page's following a log it does not hold) that the listing may
 * have changed: a session this server holds committed an event, a route started, renamed, archived, forked or deleted
 * one, or the store saw another process change one.
 *
 * What holds:
 * - The store is watched (`SessionStore.watchSummaries`) exactly while at least one stream listens: the first
 *   listener opens the watch, the last one to leave closes it, so a server with no page open watches nothing.
 * - Nudges within `DEBOUNCE_MS` are one: a streaming reply, or a burst of another process's appends, re-checks once.
 * - Only when the store cannot watch (it has no watch, or its watch failed) do the streams re-check on a timer,
 *   every `RECHECK_MS`; a failure is said once per server on stderr.
 */
export class ListingChanges {
  private readonly listeners = new Set<() => void>()
  private timer: NodeJS.Timeout | undefined
  private watch: SummaryWatch | undefined
  private recheck: NodeJS.Timeout | undefined
  private toldFailure = false

  constructor(
    private readonly store: Pick<SessionStore, 'watchSummaries'>,
    private readonly say: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  /** How other processes' changes are noticed now: the store's watch, a timer, or not at all (no page listens). */
  get noticing(): 'notify' | 'query' | 'timer' | 'idle' {
    return this.watch?.how ?? (this.recheck ? 'timer' : 'idle')
  }

  nudge(): void {
    if (this.timer || !this.listeners.size) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      for (const listener of this.listeners) listener()
    }, DEBOUNCE_MS).unref()
  }

  listen(listener: () => void): () => void {
    this.listeners.add(listener)
    if (this.listeners.size === 1) this.startNoticing()
    return () => {
      if (!this.listeners.delete(listener) || this.listeners.size) return
      this.stopNoticing()
    }
  }

  private startNoticing(): void {
    if (!this.store.watchSummaries) {
      this.startTimer()
      return
    }
    let watch: SummaryWatch | undefined = undefined
    watch = this.store.watchSummaries('all', {
      changed: () => this.nudge(),
      failed: (error) => {
        if (watch !== undefined && this.watch !== watch) return
        this.watch = undefined
        if (!this.toldFailure) {
          this.toldFailure = true
          this.say(`rein web: cannot watch the session store for changes (${error.message}); the list re-checks every ${RECHECK_MS / 1000} s instead.`)
        }
        if (this.listeners.size) this.startTimer()
      },
    })
    this.watch = watch
  }

  private startTimer(): void {
    this.recheck ??= setInterval(() => this.nudge(), RECHECK_MS).unref()
  }

  private stopNoticing(): void {
    const watch = this.watch
    this.watch = undefined
    watch?.close()
    clearInterval(this.recheck)
    this.recheck = undefined
    clearTimeout(this.timer)
    this.timer = undefined
  }
}

/** How long nudges gather before the streams re-check the listing (ms): a streaming reply commits many events. */
const DEBOUNCE_MS = 250
/** How often the streams re-check the listing when the store cannot tell of changes (ms). */
export const RECHECK_MS = 5_000
