import type { SessionEvent } from '../session/events.js'
import { readSessionLog } from '../session/load.js'
import type { SessionStore } from '../store/store.js'
import { isInside } from '../tools/paths.js'
import { WebError } from './directories.js'
import { sessionFigures, type Pricing, type SessionFigures } from './figures.js'
import type { Inspector } from './inspector.js'
import type { SessionHost } from './session-host.js'
import type { SessionReader } from './session-reader.js'
import type { SessionRow, ShownState } from './api-types.js'
import { agentToolLookup, toolLookup } from '../frontend/render/index.js'
import { EventShower } from './shown-events.js'

const ID = /^[A-Za-z0-9-]{1,128}$/

/** What the routes share: where sessions live, which of them this server may show, and the parts that read them. */
export class WebContext {
  private readonly figures = new Map<string, { version: string; figures: SessionFigures }>()

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
  ) {}

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
    for (const s of summaries) {
      const live = this.host.get(s.id)
      const version = `${s.bytes}:${s.updatedAt}`
      let cached = this.figures.get(s.id)
      if (cached?.version !== version) {
        try {
          cached = { version, figures: sessionFigures((await readSessionLog(this.store, s.id)).events, this.price) }
        } catch {
          // A damaged log is still listed (its page says what is wrong); it just has no figures.
          cached = { version, figures: { model: '', cost: 0, state: 'idle' } }
        }
        this.figures.set(s.id, cached)
      }
      const f = cached.figures
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
      })
    }
    return rows
  }
}
