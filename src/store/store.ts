import type { SessionHeader } from '../session/events.js'
import type { SessionLease } from './lease.js'

/**
 * Where a read stopped and what it dropped. The JSONL store uses `validBytes` to cut a torn last line before the
 * first append; other stores may ignore it. Pass it back unchanged to `openAppend`.
 */
export interface ReadEnd {
  /** Complete records read, the header included. */
  records: number
  /** Bytes of the record data that hold complete records; anything after is a torn tail. */
  validBytes: number
  /** False when the last complete record was not followed by a newline (the file ends right after it). */
  endsWithNewline: boolean
  /** The torn last line that was dropped, if any: its 1-based line number and length in bytes. */
  torn?: { line: number; bytes: number }
}

/** Called once per complete record, in order; the header is line 1. Throwing stops the read. */
export type RecordSink = (value: unknown, line: number) => void

/** Appends to one session's record. Writes are durable when `write` resolves. */
export interface SessionWriter {
  /** The file that holds the session, when the store keeps files. */
  readonly path: string | undefined
  /**
   * Appends complete records (each one line of JSON, without its newline) and syncs them to stable storage. Fails,
   * writing nothing, when the writer no longer holds the session's lease.
   */
  write(lines: readonly string[]): Promise<void>
  /** Releases the writer and its lease; later writes fail. */
  close(): Promise<void>
}

/** What the listing shows for one session, gathered without parsing its whole log. Times are ms since the epoch. */
export interface SessionSummary {
  id: string
  cwd: string
  /** The latest `session/title`, else the first prompt's first words, else empty. */
  title: string
  createdAt: number
  /** Time of the last complete event (the creation time when there is none). */
  updatedAt: number
  /** Number of `turn/start` events. */
  turns: number
  /** Size of the record in bytes. */
  bytes: number
  parent?: { id: string; seq: number }
  /** Set for a subagent's session: its parent session and agent type. */
  subagent?: { parent: string; agent: string }
}

/** A stored session id and the cwd key of the directory it belongs to (see `cwdKey`). */
export interface StoredId {
  id: string
  cwdKey: string
}

/**
 * The seam between the session log and where it lives. The JSONL store is the embedded default; a server backend
 * can implement the same calls. A store deals in header and record lines; event meaning belongs to `src/session`.
 */
export interface SessionStore {
  /**
   * Creates a session holding only its header, durably, and opens it for appending, holding its writer lease (see
   * `lease.ts` for the invariants). Fails when the id exists.
   */
  create(header: SessionHeader): Promise<SessionWriter>
  /**
   * Takes the writer lease of a stored session, before it is read for appending. Throws a SessionError `busy` naming
   * the holder when another live process holds it; takes over a stale lease.
   */
  lease(id: string): Promise<SessionLease>
  /**
   * Streams the records of a session in order, header first, parsing each line as JSON. A last line that is not
   * valid JSON is torn and dropped (reported in the result); any earlier line that is not valid JSON is an error
   * naming the location and line. Never changes the stored session.
   */
  read(id: string, sink: RecordSink): Promise<ReadEnd>
  /**
   * Opens an existing session for appending after a read that ended at `end` (cutting off a torn tail, kept aside).
   * `lease` must have been taken before the read; the writer owns it from here and releases it on close.
   */
  openAppend(id: string, end: ReadEnd, lease: SessionLease): Promise<SessionWriter>
  /** How a person finds the record in errors: a file path, or a store-specific name. */
  location(id: string): Promise<string>
  /** Every stored session id, for prefix resolution. */
  ids(): Promise<StoredId[]>
  /** Summaries of the sessions of one working directory (`cwd`) or of all of them, in no particular order. */
  summaries(cwd: string | 'all'): Promise<SessionSummary[]>
  /**
   * Optional: true when some process holds the writer lease of session `id` now; false when nobody does (never
   * taken, released, or gone stale so the next taker would take it over). Only reads: never takes or refreshes the
   * lease. Readers (the web listing) use it to tell a session running elsewhere from one a crash left open.
   */
  isLeased?(id: string): Promise<boolean>
  /**
   * Deletes a stored session and everything the store keeps for it (resume sidecar, records, lease), all or nothing.
   * The writer lease decides: a session a live process holds is refused whole (a SessionError `busy`); an unknown id
   * is `not-found`. A fork keeps its own copy of everything it took from the removed session.
   */
  remove(id: string): Promise<void>
  /**
   * Optional: tells `listener.changed()` soon after any process may have changed the listing of `cwd` (or of all
   * sessions): a session created, appended to or removed, or its lease taken or let go. Cheaper than re-listing: the
   * JSONL store is told by the file system and then lists from memory, re-reading only the files it was told of
   * (`listing-watch.ts`); the PostgreSQL store asks one small change query. `listener.failed()` is called at most
   * once, when the store can no longer tell; the caller then re-checks on a timer. Bursts are not debounced here.
   */
  watchSummaries?(cwd: string | 'all', listener: SummaryListener): SummaryWatch
  /**
   * Optional: resume sidecars (src/session/sidecar.ts). A store without them resumes by reading the whole log; one
   * with them lets a resume read the sidecar and only the log's tail.
   */
  readonly sidecars?: SidecarAccess
}

/** Who hears of a store's listing changes (see `SessionStore.watchSummaries`). */
export interface SummaryListener {
  changed(): void
  /** The store can no longer tell of changes; called at most once, and nothing is called after it. */
  failed(error: Error): void
}

/** An open watch on a store's listing. */
export interface SummaryWatch {
  /** How changes are noticed, for messages and figures: `notify` (told by the file system) or `query` (a change query). */
  readonly how: 'notify' | 'query'
  /** Stops watching and releases what the watch holds (watchers, timers); idempotent. */
  close(): void
}

/** Where a partial read starts: after `records` complete records (the header included), at byte `bytes`. */
export interface ReadStart {
  bytes: number
  records: number
}

/**
 * A store's resume sidecars and the ranged reads that check one against its log. The sidecar is derived data: a
 * store may lose or refuse it at any time, and readers must check it (see `SidecarBody`).
 */
export interface SidecarAccess {
  /** The sidecar's text, or undefined when there is none. */
  read(id: string): Promise<string | undefined>
  /** Replaces the sidecar so a reader sees the old one or the new one, never a mix. */
  write(id: string, text: string): Promise<void>
  /** Where the sidecar is kept, for messages. */
  location(id: string): Promise<string>
  /** The log's size in bytes. */
  logSize(id: string): Promise<number>
  /** The log's bytes from `start` to `end` (fewer when the log is shorter). */
  logBytes(id: string, start: number, end: number): Promise<Buffer>
  /** Streams the records after `from`, numbering lines on from `from.records`; otherwise as `SessionStore.read`. */
  readFrom(id: string, from: ReadStart, sink: RecordSink): Promise<ReadEnd>
  /**
   * Reads the `count` complete lines that start at byte `from`: where they end, the SHA-256 of those bytes (newlines
   * included) and the last line (without its newline). Undefined when the log holds fewer complete lines there.
   */
  digestLines(id: string, from: number, count: number): Promise<{ end: number; sha256: string; last: Buffer } | undefined>
}

export type { LeaseOwner, SessionLease } from './lease.js'
