import type { SidecarAccess } from '../store/store.js'
import type { SessionEvent } from './events.js'
import { heldFrom, sha256, sidecarText, type SidecarCoverage } from './sidecar.js'

/** The part of a `Session` the writer reads; every call is one the session offers anyone. */
export interface SidecarSource {
  readonly id: string
  readonly length: number
  readonly events: readonly SessionEvent[]
  surface(): readonly { seq: number }[]
  flush(): Promise<void>
  subscribe(listener: (event: SessionEvent) => void): () => void
}

/** How much log a sidecar may leave behind it before a new one is written: `REIN_SIDECAR_BYTES`, else 8 MiB. */
export function sidecarEveryBytes(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.REIN_SIDECAR_BYTES)
  return Number.isInteger(value) && value > 0 ? value : 8 * 1024 * 1024
}

/**
 * Keeps a session's resume sidecar current: after each `compaction/end`, and at a step or turn end once the log has
 * grown by `everyBytes` since the last sidecar. It follows the session's events to know what a resume needs (the
 * latest event of each type, the queued prompts still pending, where the open step began); the surface it reads from the
 * session. A sidecar is written only when it is at most half the bytes it saves reading, so a session that is
 * mostly surface (never compacted) keeps none. Writing never fails the session: a sidecar that cannot be written is
 * simply not there, and resume reads the whole log.
 */
export class SidecarWriter {
  private readonly latest = new Map<string, number>()
  /** Queued prompts not yet taken: id → seq of their `inbox/queued`. */
  private readonly pending = new Map<string, number>()
  private lastTurnEnd = -1
  private lastStepStart = -1
  private covered: SidecarCoverage | undefined
  private running: Promise<void> | undefined
  private again: 'check' | 'force' | undefined
  /** Set when a sidecar would not pay for itself; cleared by the next compaction. */
  private worthless = false
  private readonly unsubscribe: () => void

  constructor(
    private readonly session: SidecarSource,
    private readonly access: SidecarAccess,
    covered: SidecarCoverage | undefined,
    private readonly everyBytes = sidecarEveryBytes(),
  ) {
    this.covered = covered
    for (const event of session.events) this.follow(event)
    this.unsubscribe = session.subscribe((event) => {
      this.follow(event)
      if (event.type === 'compaction/end') {
        this.worthless = false
        this.schedule('force')
      } else if ((event.type === 'step/end' || event.type === 'turn/end') && !this.worthless) {
        this.schedule('check')
      }
    })
  }

  /** Stops following the session and resolves once the writes already asked for are done; called by `close`. */
  async settle(): Promise<void> {
    this.unsubscribe()
    while (this.running) await this.running
  }

  private follow(event: SessionEvent): void {
    this.latest.set(event.type, event.seq)
    if (event.type === 'turn/end') this.lastTurnEnd = event.seq
    if (event.type === 'step/start') this.lastStepStart = event.seq
    const data = event.data as { id?: unknown }
    if (event.type === 'inbox/queued' && typeof data.id === 'string') this.pending.set(data.id, event.seq)
    else if (typeof data.id === 'string' && (event.type === 'inbox/dequeued' || event.type.endsWith('/message'))) {
      this.pending.delete(data.id)
    }
  }

  private schedule(kind: 'check' | 'force'): void {
    if (this.running) {
      if (this.again !== 'force') this.again = kind
      return
    }
    this.running = this.write(kind)
      .catch(() => {
        // A sidecar is derived: failing to write one loses nothing, and the next resume reads the whole log.
      })
      .finally(() => {
        this.running = undefined
        const next = this.again
        this.again = undefined
        if (next) this.schedule(next)
      })
  }

  private async write(kind: 'check' | 'force'): Promise<void> {
    const id = this.session.id
    const from = this.covered?.bytes ?? 0
    if (kind === 'check' && (await this.access.logSize(id)) - from < this.everyBytes) return
    // What the sidecar describes is taken in one synchronous moment: the first `events` events and the surface then.
    const events = this.session.length
    if (events === 0 || events === this.covered?.events) return
    const surface = this.session.surface().map((e) => e.seq)
    const seqs = new Set<number>([...surface, ...this.latest.values(), ...this.pending.values()])
    for (let seq = heldFrom(this.lastTurnEnd, this.lastStepStart); seq < events; seq++) seqs.add(seq)
    // Most of the log on the surface: the sidecar would not pay for itself, so skip hashing and serializing it.
    if (seqs.size * 2 > events) {
      this.worthless = true
      return
    }
    const held = [...seqs].filter((seq) => seq < events).sort((a, b) => a - b).map((seq) => this.session.events[seq])
    await this.session.flush()

    const covered = this.covered ?? (await this.headerCoverage())
    if (!covered) return
    const range = await this.access.digestLines(id, covered.bytes, events - covered.events)
    if (!range) return
    const text = sidecarText({
      session: id,
      covers: {
        events,
        bytes: range.end,
        header: covered.header,
        headerBytes: covered.headerBytes,
        last: sha256(range.last),
        lastBytes: range.last.length,
      },
      segments: [...covered.segments, { end: range.end, sha256: range.sha256 }],
      surface,
      held,
    })
    if (Buffer.byteLength(text) * 2 > range.end) {
      this.worthless = true
      return
    }
    await this.access.write(id, text)
    this.covered = { events, bytes: range.end, header: covered.header, headerBytes: covered.headerBytes, segments: [...covered.segments, { end: range.end, sha256: range.sha256 }] }
  }

  /** The coverage of the header line alone: where a session without a sidecar starts. */
  private async headerCoverage(): Promise<SidecarCoverage | undefined> {
    const line = await this.access.digestLines(this.session.id, 0, 1)
    if (!line) return undefined
    return {
      events: 0,
      bytes: line.end,
      header: sha256(line.last),
      headerBytes: line.last.length,
      segments: [{ end: line.end, sha256: line.sha256 }],
    }
  }
}
