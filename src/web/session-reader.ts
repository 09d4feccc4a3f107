import { stat } from 'node:fs/promises'
import type { SessionEvent, SessionHeader } from '../session/events.js'
import { readSessionLog } from '../session/load.js'
import type { JsonlStore } from '../store/jsonl-store.js'
import type { LiveSession } from './live-session.js'

/** A session's header and events as the server reads them: the live log when hosted, else the stored file. */
export interface ReadLog {
  header: SessionHeader
  events: readonly SessionEvent[]
  /** Changes whenever the log grows: the event count for a hosted log, the file's size and mtime for a stored one. */
  version: string
}

/**
 * Reads sessions without ever taking their lease. A stored log is parsed once per change of its file (size and
 * mtime) and kept, so paging through a long session reads the file once, not once per page.
 */
export class SessionReader {
  private readonly cache = new Map<string, { version: string; log: ReadLog }>()

  constructor(
    private readonly store: JsonlStore,
    private readonly live: (id: string) => LiveSession | undefined,
  ) {}

  async read(id: string): Promise<ReadLog> {
    const hosted = this.live(id)
    if (hosted) {
      const session = hosted.opened.agent.session
      return { header: session.header, events: session.events, version: `live:${session.length}` }
    }
    const location = await this.store.location(id)
    const info = await stat(location)
    const version = `${info.size}:${info.mtimeMs}`
    const cached = this.cache.get(id)
    if (cached?.version === version) return cached.log
    const log = await readSessionLog(this.store, id)
    const read: ReadLog = { header: log.header, events: log.events, version }
    // Only the most recently read logs are kept: a 10,000-event log is tens of megabytes parsed.
    if (this.cache.size >= 8) this.cache.delete(this.cache.keys().next().value as string)
    this.cache.set(id, { version, log: read })
    return read
  }
}
