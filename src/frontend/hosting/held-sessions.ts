/** A session a surface holds open for writing: its agent holds the session's writer lease until `close`. */
export interface HeldSession {
  readonly id: string
  close(reason: string): Promise<void>
}

/**
 * The sessions one server (the web, an ACP connection) holds open, by id. Opening the same session twice at once
 * shares one open, so two pages or two `session/load`s never race for its writer lease; `closeAll` stops every turn
 * first (so none waits for another's to wind down), then flushes and releases every session.
 */
export class HeldSessions<S extends HeldSession> {
  private readonly held = new Map<string, S>()
  private readonly opening = new Map<string, Promise<S>>()

  /** `stop` ends a session's running turn at once (a signal's interrupt, an editor's cancel). */
  constructor(private readonly stop: (session: S) => void) {}

  get(id: string): S | undefined {
    return this.held.get(id)
  }

  values(): S[] {
    return [...this.held.values()]
  }

  /** Holds a session just opened (a new one, whose id nobody could have asked for before). */
  keep(session: S): S {
    this.held.set(session.id, session)
    return session
  }

  /** The held session `id`, or the one `open` resumes, shared with every caller asking while it opens. */
  async resume(id: string, open: () => Promise<S>): Promise<S> {
    const held = this.held.get(id)
    if (held) return held
    let pending = this.opening.get(id)
    if (!pending) {
      pending = open().then((session) => this.keep(session))
      this.opening.set(id, pending)
      const done = () => void this.opening.delete(id)
      pending.then(done, done)
    }
    return pending
  }

  /** Stops holding `id` and closes it; false when it was not held. */
  async release(id: string, reason: string): Promise<boolean> {
    const session = this.held.get(id)
    if (!session) return false
    this.held.delete(id)
    await session.close(reason)
    return true
  }

  /** Stops every turn, then closes every session (those still opening once they have opened); returns the failures. */
  async closeAll(reason: string): Promise<unknown[]> {
    await Promise.allSettled([...this.opening.values()])
    const sessions = this.values()
    this.held.clear()
    for (const s of sessions) this.stop(s)
    const results = await Promise.allSettled(sessions.map((s) => s.close(reason)))
    return results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []))
  }
}
