import { readSessionLog } from '../session/load.js'
import type { SessionStore } from '../store/store.js'
import { sessionFigures, type Pricing, type SessionFigures } from './figures.js'

/**
 * How many rows of one listing get their figures before it answers (the newest: the rows a page shows first). The
 * others are computed after the answer, one log at a time, and show as pending until then; the page's next
 * revalidation brings them. A count, not a time, so what a listing holds does not depend on the machine's load.
 */
export const INLINE_FIGURES = 100

/**
 * Each listed session's figures (model, cost, state, cache-hit share), kept per log version (the listing summary's
 * byte count and update time). Computing them means reading the whole log, which for thousands of sessions without
 * a cache takes seconds: beyond the first `INLINE_FIGURES` stale rows of a listing they are queued instead.
 */
export class ListingFigures {
  private readonly known = new Map<string, { version: string; figures: SessionFigures }>()
  private readonly queue = new Map<string, string>()
  private working = false

  constructor(
    private readonly store: SessionStore,
    private readonly price: Pricing,
  ) {}

  /**
   * The figures of session `id` at `version`: computed now while `inline` is true, else the ones known (`pending`
   * when they are of an older version or none) with the current version queued.
   */
  async get(id: string, version: string, inline: boolean): Promise<{ figures: SessionFigures; pending: boolean; computed: boolean }> {
    const known = this.known.get(id)
    if (known?.version === version) return { figures: known.figures, pending: false, computed: false }
    if (inline) return { figures: await this.compute(id, version), pending: false, computed: true }
    this.queue.set(id, version)
    void this.work()
    return { figures: known?.figures ?? { model: '', cost: 0, state: 'idle' }, pending: true, computed: false }
  }

  private async compute(id: string, version: string): Promise<SessionFigures> {
    let figures: SessionFigures
    try {
      figures = sessionFigures((await readSessionLog(this.store, id)).events, this.price)
    } catch {
      // A damaged log is still listed (its page says what is wrong); it just has no figures.
      figures = { model: '', cost: 0, state: 'idle' }
    }
    this.known.set(id, { version, figures })
    return figures
  }

  /** Works the queue one log at a time, so a cold listing of thousands never holds the event loop for long. */
  private async work(): Promise<void> {
    if (this.working) return
    this.working = true
    try {
      for (let next = this.queue.entries().next(); !next.done; next = this.queue.entries().next()) {
        const [id, version] = next.value
        this.queue.delete(id)
        if (this.known.get(id)?.version !== version) await this.compute(id, version)
      }
    } finally {
      this.working = false
    }
  }
}
