import type { SessionEvent, SessionHeader } from '../session/events.js'
import { readSessionLog } from '../session/load.js'
import type { SessionStore } from '../store/store.js'
import type { LiveSession } from './live-session.js'

/** A session's header and events as the server reads them: the live log when hosted, else the stored one. */
export interface ReadLog {
  header: SessionHeader
  events: readonly SessionEvent[]
  /**
   * Changes whenever the log grows: the event count for a hosted log; for a stored one, the byte count and update
   * time of its listing summary (what every store keeps current with each append).
   */
  version: string
}

/**
 * Reads sessions through the `SessionStore` interface without ever taking their lease. A stored log is parsed once
 * per change of its summary and kept, so paging through a long session reads the log once, not once per page.
 */
export class SessionReader {
  private readonly cache = new Map<string, { version: string; log: ReadLog }>()
  /** The cwd of every session read so far: a few bytes each. */
  private readonly cwds = new Map<string, string>()

  constructor(
    private readonly store: SessionStore,
    private readonly live: (id: string) => LiveSession | undefined,
  ) {}

  async read(id: string): Promise<ReadLog> {
    const hosted = this.live(id)
    if (hosted) {
      const session = hosted.opened.agent.session
      return { header: session.header, events: session.events, version: `live:${session.length}` }
    }
    // The version is taken before the log is read, so a log that grows during the read gets a new version next time.
    const version = await this.version(id)
    const cached = this.cache.get(id)
    if (cached && version !== undefined && cached.version === version) return cached.log
    const log = await readSessionLog(this.store, id)
    // A store that lists no summary for the session (none should) leaves it uncached: read whole each time.
    const read: ReadLog = { header: log.header, events: log.events, version: version ?? `events:${log.events.length}` }
    this.cache.delete(id)
    if (version === undefined) return read
    // Only the most recently read logs are kept: a 10,000-event log is tens of megabytes parsed.
    if (this.cache.size >= 8) this.cache.delete(this.cache.keys().next().value as string)
    this.cache.set(id, { version, log: read })
    return read
  }

  /**
   * The session's listing summary as a version, or undefined when the store lists none for it. Summaries are listed
   * per directory, so the session's cwd is read from its header once (a header never changes) and remembered.
   */
  private async version(id: string): Promise<string | undefined> {
    let cwd = this.cwds.get(id)
    if (cwd === undefined) {
      cwd = await this.headerCwd(id)
      this.cwds.set(id, cwd)
    }
    const summary = (await this.store.summaries(cwd)).find((s) => s.id === id)
    return summary ? `${summary.bytes}:${summary.updatedAt}` : undefined
  }

  /** The cwd in the session's header, reading no further than the header. */
  private async headerCwd(id: string): Promise<string> {
    let cwd: string | undefined
    const stop = new Error('header read')
    try {
      await this.store.read(id, (value) => {
        cwd = (value as Partial<SessionHeader>).cwd
        throw stop
      })
    } catch (error) {
      if (error !== stop) throw error
    }
    // A header without a cwd is damaged; the full read that follows says so in its own sentence.
    return typeof cwd === 'string' ? cwd : ''
  }
}
