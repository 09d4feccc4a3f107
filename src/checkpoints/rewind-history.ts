import { Inbox } from '../agent/inbox.js'
import type { SessionEvent } from '../session/events.js'
import { forkSession } from '../session/fork.js'
import { readSessionLog } from '../session/load.js'
import { Session } from '../session/session.js'
import type { SessionStore } from '../store/store.js'

/** What a rewind reads and makes besides the workspace: the session's log, and forks of it in the same store. */
export interface RewindHistory {
  /** Every event of the session the rewind runs in, in seq order (durable first: what a fork would copy). */
  events(): Promise<readonly SessionEvent[]>
  /**
   * A new session holding the events `0..seq` (null: none), open for appending, its header naming the source. The
   * prompts still queued at that point are withdrawn in it (`inbox/dequeued`), or resuming the fork would run the
   * rewound turn's prompt again; queued injected context stays for its next request.
   */
  fork(seq: number | null): Promise<Session>
  /** Makes every event appended so far durable (synced): a restore's undo point is, before any file is touched. */
  flush(): Promise<void>
}

/** The rewind history of `session`, forking through `store`. */
export function sessionHistory(store: SessionStore, session: Session): RewindHistory {
  return {
    async events() {
      await session.flush()
      // A session resumed from its sidecar holds only what the running agent reads; a rewind needs the whole log.
      let held = 0
      for (const _event of session.events) held++
      return held === session.events.length ? session.events : (await readSessionLog(store, session.id)).events
    },
    async fork(seq) {
      await session.flush()
      // A fork before the first event names seq -1 as its parent point: the header's seq is the last event copied.
      const fork = seq === null ? await Session.create(store, { cwd: session.cwd, parent: { id: session.id, seq: -1 } }) : await forkSession(store, session.id, seq)
      for (const item of Inbox.fromEvents(fork.events).list()) {
        if (item.verb !== 'inject') fork.append('inbox/dequeued', { id: item.id, reason: 'withdrawn' })
      }
      return fork
    },
    flush() {
      return session.flush()
    },
  }
}
