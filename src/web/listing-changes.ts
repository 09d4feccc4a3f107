/**
 * Tells the open list streams that the listing may have changed: a session this server holds committed an event, or a
 * route started, renamed, archived, forked or deleted one. Nudges within `DEBOUNCE_MS` are one.
 */
export class ListingChanges {
  private readonly listeners = new Set<() => void>()
  private timer: NodeJS.Timeout | undefined

  nudge(): void {
    if (this.timer || !this.listeners.size) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      for (const listener of this.listeners) listener()
    }, DEBOUNCE_MS).unref()
  }

  listen(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}

/** How long nudges gather before the streams re-check the listing (ms): a streaming reply commits many events. */
const DEBOUNCE_MS = 250
