import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import type { Message } from '../llm/messages.js'
import { SessionError, writeFailed } from '../store/errors.js'
import type { SessionStore, SessionWriter } from '../store/store.js'
import {
  isKnownType,
  isSurfaceType,
  SURFACE_TYPES,
  type EventDataMap,
  type EventRecord,
  type EventType,
  type SessionEvent,
  type SessionHeader,
  type SubagentLink,
  type SurfaceEvent,
  type SurfaceOp,
} from './events.js'
import { LOG_VERSION, readSessionLog } from './load.js'
import { frozenJsonCopy } from './plain-json.js'
import { repairTail, type PendingEvent } from './repair.js'
import { readSessionLogFromSidecar } from './sidecar-load.js'
import { SidecarWriter } from './sidecar-writer.js'
import { normalizedOp, Surface } from './surface.js'

export interface AppendOptions {
  /** For surface events only; defaults to `append`. A replace names surface entries currently on the surface. */
  surfaceOp?: SurfaceOp
  /** Marks an event a reader that does not know its type may skip (required for unregistered types). */
  ignorable?: true
}

export interface LoadOptions {
  /**
   * Rewrites the repair events before they are appended (subagents: a cut-off `task` call's result says what the
   * child's log holds). Gets the loaded events and `repairTail`'s events; must return events that close the same calls.
   */
  amendRepair?: (events: readonly SessionEvent[], repairs: PendingEvent[]) => Promise<PendingEvent[]>
  /** Read the store's resume sidecar and only the log after it when they agree (see `load`). */
  fromSidecar?: boolean
}

/** What `Session.load` did to close a log a crash left open. */
export interface RepairReport {
  /** The torn last line that was dropped (and kept aside by the JSONL store), if any. */
  tornLine?: number
  /** The events repair appended (synthetic tool results, `step/end`, `turn/end` interrupted). */
  appended: readonly SessionEvent[]
}

/**
 * What the session applies before an event is committed (the composition root sets one; `src/trust/commit-guard.ts`
 * builds it): `event` returns the plain-JSON data to commit for `type`, `text` cleans text bound for a person.
 * Neither may throw.
 */
export interface CommitGuard {
  event(type: EventType, data: unknown): unknown
  text(text: string): string
}

/**
 * One session: its append-only log of events, held in memory and mirrored to a store. `append` is synchronous and
 * buffers the event's line; `flush` makes every buffered line durable. `seq` equals the event's index in `events`
 * and `length` is the next seq. Every event is frozen, data included. The surface and its projection are kept up to
 * date on each append, so `messages()` costs O(events since the last call).
 *
 * One Session appends to a given stored session at a time.
 */
export class Session {
  private readonly log: SessionEvent[]
  private readonly current: Surface
  private readonly latest = new Map<string, SessionEvent>()
  private readonly listeners = new Set<(event: SessionEvent) => void>()
  private pending: string[] = []
  /** The flush in progress; each flush starts after the previous one, so lines reach the store in seq order. */
  private flushing: Promise<void> = Promise.resolve()
  private closed = false
  private guard: CommitGuard | undefined
  /** The first failed write. From then on nothing more is written: every flush fails with it. */
  private failed: SessionError | undefined
  /** Set by `load`: what repair did. Empty for a created session. */
  repair: RepairReport = { appended: [] }
  /** Keeps the resume sidecar current when the store keeps sidecars (see `sidecar.ts`). */
  private sidecar: SidecarWriter | undefined

  private constructor(
    private readonly writer: SessionWriter,
    readonly header: SessionHeader,
    events: SessionEvent[],
    surface: Surface,
  ) {
    this.log = events
    this.current = surface
    for (const event of events) this.latest.set(event.type, event)
  }

  /** Starts a new, empty session in `store` whose header is already durable when this resolves. */
  static async create(
    store: SessionStore,
    options: { cwd: string; parent?: { id: string; seq: number }; id?: string; subagent?: SubagentLink },
  ): Promise<Session> {
    const header: SessionHeader = {
      type: 'session',
      version: LOG_VERSION,
      id: options.id ?? randomUUID(),
      createdAt: Date.now(),
      cwd: resolve(options.cwd),
      ...(options.parent ? { parent: { id: options.parent.id, seq: options.parent.seq } } : {}),
      ...(options.subagent ? { subagent: { ...options.subagent } } : {}),
    }
    const writer = await store.create(header)
    const session = new Session(writer, Object.freeze(header), [], new Surface())
    if (store.sidecars) session.sidecar = new SidecarWriter(session, store.sidecars, undefined)
    return session
  }

  /**
   * Opens a stored session (full id) for appending. A torn last line is dropped; whatever a crash left open is
   * closed by appending and flushing repair events (see `repairTail`), reported in `repair`. Damage anywhere else
   * throws a `SessionError` naming the file and line and leaves the file untouched.
   *
   * With `fromSidecar`, the load reads the store's resume sidecar and only the log after it when they agree (else the
   * whole log): `events` then holds only what a running agent reads (see `sparse-log.ts`), for front ends that do not
   * show the history (`rein -p`).
   */
  static async load(store: SessionStore, id: string, options: LoadOptions = {}): Promise<Session> {
    // The lease comes first: a read made before it could miss events its previous holder was still appending.
    const lease = await store.lease(id)
    let log: Awaited<ReturnType<typeof readSessionLog>>
    let writer: SessionWriter
    let repairs: PendingEvent[]
    try {
      log = (options.fromSidecar ? await readSessionLogFromSidecar(store, id) : undefined) ?? (await readSessionLog(store, id))
      repairs = repairTail(log.events)
      if (repairs.length && options.amendRepair) repairs = await options.amendRepair(log.events, repairs)
      writer = await store.openAppend(id, log.end, lease)
    } catch (error) {
      await lease.release()
      throw error
    }
    const session = new Session(writer, log.header, log.events, log.surface)
    if (store.sidecars) session.sidecar = new SidecarWriter(session, store.sidecars, log.sidecar)
    const appended = repairs.map((pending) => session.append(pending.type, pending.data))
    session.repair = { appended, ...(log.end.torn ? { tornLine: log.end.torn.line } : {}) }
    if (appended.length) await session.flush()
    return session
  }

  get id(): string {
    return this.header.id
  }

  get cwd(): string {
    return this.header.cwd
  }

  /** The JSONL file, when the store keeps files. */
  get path(): string | undefined {
    return this.writer.path
  }

  /** The next seq: the number of events in the log. */
  get length(): number {
    return this.log.length
  }

  /** Every event of the log in seq order (frozen; the array grows as events are appended). */
  get events(): readonly SessionEvent[] {
    return this.log
  }

  /**
   * Appends one event: checks it, assigns the next seq and the current time, buffers its line for the store and
   * notifies subscribers, all synchronously. `data` must be plain JSON; it is copied and frozen. Surface events get
   * `surfaceOp: 'append'` unless given a replace, which must name entries on the current surface; other events must
   * not carry a surfaceOp. Throws an Error saying what to fix, and changes nothing, when the event is invalid.
   */
  append<T extends EventType>(type: T, data: EventDataMap[T], options: AppendOptions = {}): SessionEvent<T> {
    if (this.closed) throw new SessionError('closed', `session ${this.id} is closed; load it again to append.`)
    if (!isKnownType(type) && options.ignorable !== true) {
      throw new Error(`cannot append ${type}: the event type is not registered in src/session/events.ts; add it there, or mark the event ignorable.`)
    }
    if (options.ignorable !== undefined && options.ignorable !== true) {
      throw new Error(`cannot append ${type}: ignorable must be true when given.`)
    }
    let op: SurfaceOp | undefined
    if (isSurfaceType(type)) {
      const requested = options.surfaceOp ?? 'append'
      const problem = this.current.problem(requested)
      if (problem) throw new Error(`cannot append ${type}: ${problem}.`)
      op = normalizedOp(requested)
    } else if (options.surfaceOp !== undefined) {
      throw new Error(`cannot append ${type} with a surfaceOp: only ${SURFACE_TYPES.join(', ')} are surface events.`)
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      throw new Error(`cannot append ${type}: its data must be a plain object.`)
    }
    let copied: EventDataMap[T]
    try {
      copied = frozenJsonCopy(data, 'data') as unknown as EventDataMap[T]
      if (this.guard) copied = frozenJsonCopy(this.guard.event(type, copied), 'data') as unknown as EventDataMap[T]
    } catch (error) {
      throw new Error(`cannot append ${type}: ${(error as Error).message}`)
    }
    const event: EventRecord<T> = { seq: this.log.length, time: Date.now(), type, data: copied }
    if (op !== undefined) event.surfaceOp = op
    if (options.ignorable) event.ignorable = true
    // For an unresolved `T` the compiler cannot see that `EventRecord<T>` is a member of the union `SessionEvent`.
    this.commit(Object.freeze(event) as SessionEvent)
    return event as SessionEvent<T>
  }

  /**
   * Sets the function every later `append` passes event data through before it is committed (secret redaction and
   * producer-framing escapes, `src/trust/commit-guard.ts`). It must return plain JSON of the same shape. Set by the
   * composition root; a session without one commits data as given.
   */
  setCommitGuard(guard: CommitGuard): void {
    this.guard = guard
  }

  /** Text bound for a person (a notice, an error) with the guard's secrets redacted; unchanged without a guard. */
  redact(text: string): string {
    return this.guard ? this.guard.text(text) : text
  }

  /**
   * Appends a copy of an event from another log, keeping its type, time, data, surface op and ignorable flag (used
   * by fork). Its seq must be this log's next seq; it is checked like `append`.
   */
  adopt(event: SessionEvent): SessionEvent {
    if (this.closed) throw new SessionError('closed', `session ${this.id} is closed; load it again to append.`)
    if (event.seq !== this.log.length) throw new Error(`cannot adopt event ${event.seq}: the next seq is ${this.log.length}.`)
    if (isSurfaceType(event.type)) {
      const problem = this.current.problem(event.surfaceOp)
      if (problem) throw new Error(`cannot adopt event ${event.seq}: ${problem}.`)
    }
    const copy = frozenJsonCopy(event, 'event') as unknown as SessionEvent
    this.commit(copy)
    return copy
  }

  private commit(event: SessionEvent): void {
    const line = JSON.stringify(event)
    this.log.push(event)
    this.pending.push(line)
    this.latest.set(event.type, event)
    if (isSurfaceType(event.type)) this.current.apply(event as SurfaceEvent)
    for (const listener of this.listeners) {
      try {
        listener(event)
      } catch (error) {
        // The event is committed; a failing listener must not undo it or stop the others. It is reported, not lost.
        process.emitWarning(`a session subscriber failed on event ${event.seq} (${event.type}): ${String(error)}`)
      }
    }
  }

  /** Writes every buffered line to the store and syncs it. On failure the lines stay buffered and the error is thrown. */
  flush(): Promise<void> {
    const run = this.flushing.then(() => this.writePending())
    // The chain only orders flushes; each caller gets its own flush's failure from `run`.
    this.flushing = run.catch(() => undefined)
    return run
  }

  /** The failure that ended writing to this session (`write-failed`), if a write failed. */
  get writeFailure(): SessionError | undefined {
    return this.failed
  }

  private async writePending(): Promise<void> {
    if (this.failed) throw this.failed
    if (!this.pending.length) return
    const lines = this.pending
    this.pending = []
    try {
      await this.writer.write(lines)
    } catch (error) {
      this.pending = lines.concat(this.pending)
      this.failed = writeFailed(this.id, this.log.length - this.pending.length - 1, error)
      throw this.failed
    }
  }

  /** The messages the next request is built from: the projection of the current surface. Frozen, shared until it changes. */
  messages(): readonly Message[] {
    return this.current.messages()
  }

  /** The current surface entries in order (after replaces). Frozen, shared until it changes. */
  surface(): readonly SurfaceEvent[] {
    return this.current.entries()
  }

  /** The latest event of a type, in O(1). */
  last<T extends EventType>(type: T): SessionEvent<T> | undefined {
    // `latest` is keyed by type, so the entry under `type` is of that type.
    return this.latest.get(type) as SessionEvent<T> | undefined
  }

  /** Calls `listener` synchronously with every event appended from now on. Returns the unsubscribe function. */
  subscribe(listener: (event: SessionEvent) => void): () => void {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /**
   * Flushes and releases the store's writer (and its lease), even when the flush fails. Appending afterwards throws.
   * Throws a write failure only if this last flush is the first to fail.
   */
  async close(): Promise<void> {
    if (this.closed) return
    const knownFailure = this.failed
    try {
      await this.flush()
    } catch (error) {
      // A write failure already reported to whoever appended is not thrown a second time; a new one is.
      if (error !== knownFailure) throw error
    } finally {
      this.closed = true
      await this.sidecar?.settle()
      await this.writer.close()
    }
  }
}

