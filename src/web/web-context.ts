import type { SessionEvent } from '../session/events.js'
import type { SessionStore } from '../store/store.js'
import { isInside } from '../tools/paths.js'
import { WebError } from './directories.js'
import { sessionFigures, type Pricing } from './figures.js'
import { INLINE_FIGURES, ListingFigures } from './listing-figures.js'
import type { Inspector } from './inspector.js'
import type { SessionHost } from './session-host.js'
import type { SessionReader } from './session-reader.js'
import type { SessionRow, ShownState } from './api-types.js'
import { agentToolLookup, toolLookup } from '../frontend/render/index.js'
import { EventShower } from './shown-events.js'
import { ArchivedSessions } from './archived.js'
import { ListingChanges } from './listing-changes.js'

const ID = /^[A-Za-z0-9-]{1,128}$/

/** What the routes share: where sessions live, which of them this server may show, and the parts that read them. */
export class WebContext {
  private readonly figures: ListingFigures
  /** The sessions the page's list hides unless asked (`$REIN_HOME/web/archived.json`). */
  readonly archived: ArchivedSessions
  /** Nudged whenever the listing may have changed; the list streams listen. */
  readonly changes: ListingChanges

  constructor(
    readonly root: string,
    /** Serve every workspace's sessions (`--all`), not only those whose directory lies inside `root`. */
    readonly all: boolean,
    readonly home: string,
    /** The store `rein web` was pointed at (`--store`, REIN_STORE, settings); read through its interface only. */
    readonly store: SessionStore,
    readonly reader: SessionReader,
    readonly host: SessionHost,
    readonly inspector: Inspector,
    readonly price: Pricing,
  ) {
    this.figures = new ListingFigures(store, price)
    this.changes = new ListingChanges(store)
    this.archived = new ArchivedSessions(home)
  }

  /**
   * What adds each tool event's display for the page: the hosted agent's own tools when this server holds the
   * session, the built-in tools' displays otherwise. `history` is the log as far as it is known.
   */
  shower(id: string, cwd: string, history: () => readonly SessionEvent[]): EventShower {
    const live = this.host.get(id)
    return new EventShower(live ? agentToolLookup(live.opened.agent) : toolLookup(), cwd, history)
  }

  /** True when this server may show (and drive) a session that runs in `cwd`. */
  visibleCwd(cwd: string): boolean {
    return this.all || isInside(cwd, this.root)
  }

  /** `id` when it names a stored session this server may show; otherwise a refusal sentence. */
  async visibleId(id: string): Promise<string> {
    if (!ID.test(id)) throw new WebError(400, 'A session id holds only letters, digits and dashes.')
    const log = await this.reader.read(id)
    if (!this.visibleCwd(log.header.cwd)) {
      throw new WebError(403, `Session ${id} belongs to ${log.header.cwd}, outside this server's workspace; start rein web --all to see every workspace.`)
    }
    return id
  }

  /** A session this server does not hold: a turn left open is running elsewhere while its lease is fresh. */
  async loggedState(id: string, events: readonly SessionEvent[]): Promise<{ state: ShownState }> {
    const logged = sessionFigures(events, this.price).state
    if (logged !== 'open') return { state: logged }
    return { state: (await this.leasedElsewhere(id)) ? 'running' : 'interrupted' }
  }

  /** True when another process holds the session's writer lease; a store that cannot tell shows none as held. */
  private async leasedElsewhere(id: string): Promise<boolean> {
    try {
      return (await this.store.isLeased?.(id)) ?? false
    } catch {
      // Removed since it was listed, or its lock unreadable: the row still shows, as not held (its page says more).
      return false
    }
  }

  /** Every session this server may show, newest activity first, with model, state, cost and cache-hit share. */
  async listing(): Promise<SessionRow[]> {
    const summaries = (await this.store.summaries('all')).filter((s) => this.visibleCwd(s.cwd))
    summaries.sort((a, b) => b.updatedAt - a.updatedAt || a.id.localeCompare(b.id))
    const rows: SessionRow[] = []
    let inline = INLINE_FIGURES
    for (const s of summaries) {
      const live = this.host.get(s.id)
      const known = await this.figures.get(s.id, `${s.bytes}:${s.updatedAt}`, inline > 0)
      if (known.computed) inline--
      const f = known.figures
      const state: ShownState = live
        ? live.opened.agent.busy
          ? 'running'
          : 'idle'
        : f.state === 'open'
          ? (await this.leasedElsewhere(s.id))
            ? 'running'
            : 'interrupted'
          : f.state
      rows.push({
        id: s.id,
        cwd: s.cwd,
        title: s.title,
        createdAt: s.createdAt,
        updatedAt: s.updatedAt,
        turns: s.turns,
        bytes: s.bytes,
        ...(s.parent ? { parent: s.parent } : {}),
        model: live ? live.opened.agent.config.model : f.model,
        state,
        hosted: live !== undefined,
        cost: f.cost,
        ...(f.cacheHitShare !== undefined ? { cacheHitShare: f.cacheHitShare } : {}),
        ...(known.pending ? { pending: true as const } : {}),
        ...(this.archived.has(s.id) ? { archived: true as const } : {}),
      })
    }
    return rows
  }
}
