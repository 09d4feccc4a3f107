import type { Message } from '../llm/messages.js'
import type { SurfaceEvent, SurfaceOp } from './events.js'
import { deepFreeze } from './plain-json.js'
import { projectEvent } from './projection.js'
import { readonlyView } from './readonly-view.js'

/**
 * The current surface: the surface events that reach the model, in order, after every replace. Kept incrementally,
 * together with their projection, so deriving the next request's messages costs O(events added since the last
 * derive); a replace re-derives from the replaced position onward.
 *
 * Invariants: `entries` holds each seq at most once; `position` maps every seq in `entries` to its index; for every
 * index below `derived`, `projected` holds that entry's message (or null) and `messagesBefore` the number of
 * messages that precede it, and `built` holds exactly the messages of those entries. Message lists handed out with
 * the same lineage (src/llm/lineage.ts) come from one `built` array, which only grows: each extends the earlier ones.
 */
export class Surface {
  /** Append-only between replaces: a replace builds a new array, so views handed out earlier never change. */
  private list: SurfaceEvent[] = []
  private readonly position = new Map<number, number>()
  /** Per entry: its frozen message, null when it projects to nothing, undefined until derived. */
  private readonly projected: (Message | null | undefined)[] = []
  private readonly messagesBefore: number[] = []
  /** Append-only between replaces, like `list`. */
  private built: Message[] = []
  /** The lineage of the message views (src/llm/lineage.ts): a new one whenever `built` is swapped for a new array. */
  private lineage: object = {}
  private derived = 0
  private messagesSnapshot: readonly Message[] | undefined
  private entriesSnapshot: readonly SurfaceEvent[] | undefined

  /**
   * A surface holding exactly `entries`, in that order, as they stood when a resume sidecar was written; their
   * surface ops are history and are not applied again. The caller guarantees each seq appears once.
   */
  static of(entries: readonly SurfaceEvent[]): Surface {
    const surface = new Surface()
    for (const event of entries) {
      surface.position.set(event.seq, surface.list.length)
      surface.list.push(event)
      surface.projected.push(undefined)
    }
    return surface
  }

  /** Number of entries on the surface. */
  get size(): number {
    return this.list.length
  }

  /** Whether `seq` is an entry of the current surface. */
  has(seq: number): boolean {
    return this.position.has(seq)
  }

  /** Why `op` cannot be applied to the current surface, or undefined when it can. */
  problem(op: unknown): string | undefined {
    if (op === 'append') return undefined
    const replace = op as { op?: unknown; start?: unknown; end?: unknown } | null
    if (replace === null || typeof replace !== 'object' || replace.op !== 'replace') {
      return `surfaceOp must be "append" or {"op":"replace","start","end"}, not ${JSON.stringify(op) ?? String(op)}`
    }
    const { start, end } = replace
    if (!Number.isInteger(start) || !Number.isInteger(end)) return 'a replace needs integer seqs start and end'
    const from = this.position.get(start as number)
    const to = this.position.get(end as number)
    if (from === undefined) return `replace start ${start} is not on the current surface`
    if (to === undefined) return `replace end ${end} is not on the current surface`
    if (from > to) return `replace start ${start} comes after end ${end} on the surface`
    return undefined
  }

  /** Applies a surface event whose op `problem` accepted. */
  apply(event: SurfaceEvent): void {
    const op = event.surfaceOp
    this.messagesSnapshot = undefined
    this.entriesSnapshot = undefined
    if (op === undefined || op === 'append') {
      this.position.set(event.seq, this.list.length)
      this.list.push(event)
      this.projected.push(undefined)
      return
    }
    const from = this.position.get(op.start) as number
    const to = this.position.get(op.end) as number
    for (let i = from; i <= to; i++) this.position.delete(this.list[i].seq)
    this.list = [...this.list.slice(0, from), event, ...this.list.slice(to + 1)]
    this.projected.splice(from, to - from + 1, undefined)
    for (let i = from; i < this.list.length; i++) this.position.set(this.list[i].seq, i)
    if (from < this.derived) {
      this.built = this.built.slice(0, this.messagesBefore[from])
      this.lineage = {}
      this.messagesBefore.length = from
      this.derived = from
    }
  }

  /**
   * The projection of the surface: frozen messages in a read-only array view (see `readonlyView`) that never
   * changes once returned. Costs O(entries added since the last call); after a replace, O(entries from the
   * replaced position).
   */
  messages(): readonly Message[] {
    if (this.messagesSnapshot) return this.messagesSnapshot
    for (let i = this.derived; i < this.list.length; i++) {
      this.messagesBefore[i] = this.built.length
      let message = this.projected[i]
      if (message === undefined) {
        const projection = projectEvent(this.list[i])
        message = projection === null ? null : deepFreeze(projection)
        this.projected[i] = message
      }
      if (message !== null) this.built.push(message)
    }
    this.derived = this.list.length
    this.messagesSnapshot = readonlyView(this.built, this.built.length, this.lineage)
    return this.messagesSnapshot
  }

  /** The surface entries in order, as a read-only view that never changes once returned; O(1). */
  entries(): readonly SurfaceEvent[] {
    this.entriesSnapshot ??= readonlyView(this.list, this.list.length)
    return this.entriesSnapshot
  }
}

/** The op to store for a surface event: `append`, or a replace reduced to its three fields. */
export function normalizedOp(op: SurfaceOp): SurfaceOp {
  return op === 'append' ? op : Object.freeze({ op: 'replace', start: op.start, end: op.end })
}
