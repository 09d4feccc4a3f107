import type { LiveEvent } from './types.js'

/**
 * The agent's live bus: every committed event, streaming pieces and notices, to front ends. Notices raised before
 * anyone listens (SessionStart hooks, MCP servers at startup) wait for the first listener, at most 100 of them.
 */
export class LiveBus {
  private readonly listeners = new Set<(event: LiveEvent) => void>()
  private early: LiveEvent[] = []

  subscribe(listener: (event: LiveEvent) => void): () => void {
    this.listeners.add(listener)
    const early = this.early
    this.early = []
    for (const notice of early) listener(notice)
    return () => this.listeners.delete(listener)
  }

  emit(event: LiveEvent): void {
    if (!this.listeners.size && event.type === 'notice' && this.early.length < 100) this.early.push(event)
    for (const listener of this.listeners) {
      try {
        listener(event)
      } catch {
        // A front end's rendering error must not break the turn; the log is unaffected.
      }
    }
  }
}
