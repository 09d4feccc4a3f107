import pg from 'pg'
import type { SessionHeader } from '../../session/events.js'
import { SessionError } from '../errors.js'
import { cwdKey } from '../home.js'
import { busyError, DEFAULT_STALE_MS, type SessionLease } from '../lease.js'
import type { ReadEnd, RecordSink, SessionStore, SessionSummary, SessionWriter, StoredId, SummaryListener, SummaryWatch } from '../store.js'
import { emptySummaryState, feedSummary, PREFIX_CHARS, summaryOf, type SummaryState } from '../summary-scan.js'
import { watchPostgresSummaries } from './change-watch.js'
import { connectionError, safeUrl } from './connection.js'
import { PostgresLease, postgresLeaseIsHeld, takePostgresLease } from './lease.js'
import { migrate } from './migrations.js'
import { removePostgresSession } from './remove.js'

/** Records fetched per round trip while streaming a session. */
const PAGE = 2000

/**
 * The shared store for fleets: sessions in a PostgreSQL database, so any machine that can reach it can list, read
 * and continue them.
 *
 * What holds:
 * - `rein_sessions` has one row per session: the header exactly as written and the listing summary, kept current by
 *   every append in the same statement as the records, so a listing never reads a log.
 * - `rein_events` holds record `seq` (the event's index: line `seq + 2` of the JSONL form) as `json` text, written
 *   only by the lease holder, in one atomic statement per `write`; a record is never changed, and is removed only
 *   with its whole session (`remove`). A failed write writes nothing, so this store has no torn tail.
 * - A read streams one consistent prefix: the records that existed when it started, a page at a time by seq.
 * - The schema is migrated on first use (`migrations.ts`).
 */
export class PostgresStore implements SessionStore {
  readonly displayUrl: string
  private readonly pool: pg.Pool
  private ready: Promise<void> | undefined

  constructor(
    readonly url: string,
    private readonly staleMs = DEFAULT_STALE_MS,
    /** `maxConnections`: the most connections this store opens at once (default 8; a session needs 2). */
    options: { maxConnections?: number } = {},
  ) {
    this.displayUrl = safeUrl(url)
    // Idle connections must not keep a finished command alive; the lease timers are unref'd likewise.
    this.pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 8, allowExitOnIdle: true })
    this.pool.on('error', () => {
      // An idle connection broke (server restart): the pool drops it and the next query opens a new one.
    })
  }

  /** Closes every connection. Leases still held expire on their own. */
  async close(): Promise<void> {
    await this.pool.end()
  }

  async create(header: SessionHeader): Promise<SessionWriter> {
    await this.migrated()
    const line = JSON.stringify(header)
    const state = emptySummaryState()
    feedSummary(state, line, () => line)
    const bytes = Buffer.byteLength(line) + 1
    const inserted = await this.query(
      `INSERT INTO rein_sessions (id, cwd, cwd_key, created_at, updated_at, header, bytes, records, summary, parent_id, parent_seq)
       VALUES ($1, $2, $3, $4, $4, $5, $6, 1, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
      [header.id, header.cwd, cwdKey(header.cwd), header.createdAt, line, bytes, state, header.parent?.id ?? null, header.parent?.seq ?? null],
    )
    if (inserted.rowCount !== 1) {
      throw new SessionError('exists', `a session with id ${header.id} already exists in ${this.displayUrl}; use a new id.`)
    }
    const lease = (await this.lease(header.id)) as PostgresLease
    return new PostgresWriter(this.pool, header.id, lease, { records: 1, bytes, state })
  }

  async lease(id: string): Promise<SessionLease> {
    await this.row(id)
    return this.query(() => takePostgresLease(this.pool, id, this.staleMs))
  }

  async read(id: string, sink: RecordSink): Promise<ReadEnd> {
    const row = await this.row(id)
    sink(JSON.parse(row.header), 1)
    const events = row.records - 1
    for (let from = 0; from < events; from += PAGE) {
      const page = await this.query<{ seq: number; record: string }>(
        'SELECT seq, record::text AS record FROM rein_events WHERE session_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq',
        [id, from, Math.min(from + PAGE, events)],
      )
      for (const record of page.rows) sink(JSON.parse(record.record), record.seq + 2)
    }
    return { records: row.records, validBytes: 0, endsWithNewline: true }
  }

  async isLeased(id: string): Promise<boolean> {
    await this.row(id)
    return this.query(() => postgresLeaseIsHeld(this.pool, id))
  }

  /** Deletes the session, its records and its lease row in one transaction; see `remove.ts` for what holds. */
  async remove(id: string): Promise<void> {
    await this.migrated()
    return this.query(() => removePostgresSession(this.pool, id, this.displayUrl))
  }

  async openAppend(id: string, end: ReadEnd, lease: SessionLease): Promise<SessionWriter> {
    if (!(lease instanceof PostgresLease) || !lease.held()) throw busyError(id, undefined)
    const row = await this.row(id)
    if (row.records !== end.records) {
      throw new SessionError('busy', `session ${id} changed while it was being opened; open it again.`)
    }
    return new PostgresWriter(this.pool, id, lease, { records: row.records, bytes: Number(row.bytes), state: row.summary })
  }

  async location(id: string): Promise<string> {
    await this.row(id)
    return `${this.displayUrl} session ${id}`
  }

  async ids(): Promise<StoredId[]> {
    await this.migrated()
    const result = await this.query<{ id: string; cwd_key: string }>('SELECT id, cwd_key FROM rein_sessions')
    return result.rows.map((row) => ({ id: row.id, cwdKey: row.cwd_key }))
  }

  async summaries(cwd: string | 'all'): Promise<SessionSummary[]> {
    return this.summaryPage(cwd)
  }

  /** Runs a small change query every second instead of re-listing (`change-watch.ts`). */
  watchSummaries(cwd: string | 'all', listener: SummaryListener): SummaryWatch {
    return watchPostgresSummaries(this.pool, cwd, listener)
  }

  /**
   * The newest sessions first, `limit` of them (all when omitted), from the summary table and its index: the listing
   * of one page costs one index scan however many sessions the store holds.
   */
  async summaryPage(cwd: string | 'all', limit?: number): Promise<SessionSummary[]> {
    await this.migrated()
    const where = cwd === 'all' ? '' : 'WHERE cwd_key = $1'
    const params: unknown[] = cwd === 'all' ? [] : [cwdKey(cwd)]
    const bound = limit === undefined ? '' : `LIMIT ${Math.max(0, Math.floor(limit))}`
    const result = await this.query<{ summary: SummaryState; bytes: string }>(
      `SELECT summary, bytes FROM rein_sessions ${where} ORDER BY updated_at DESC, id ${bound}`,
      params,
    )
    return result.rows.flatMap((row) => summaryOf(row.summary, Number(row.bytes)) ?? [])
  }

  private async row(id: string): Promise<SessionRow> {
    await this.migrated()
    const result = await this.query<SessionRow>(
      'SELECT header::text AS header, records, bytes, summary FROM rein_sessions WHERE id = $1',
      [id],
    )
    const row = result.rows[0]
    if (!row) {
      throw new SessionError('not-found', `no session ${id} in ${this.displayUrl}; run \`rein sessions list --all\` to see the ids.`)
    }
    return row
  }

  /** Connects and brings the schema up to date (done on first use by every call; exposed for the fleet's tables). */
  migrated(): Promise<void> {
    this.ready ??= this.query(() => migrate(this.pool, this.displayUrl)).catch((error: unknown) => {
      this.ready = undefined
      throw error
    })
    return this.ready
  }

  /** Runs a query (or a body of queries), turning a connection failure into one sentence naming the store. */
  private query<R extends pg.QueryResultRow>(text: string, params?: unknown[]): Promise<pg.QueryResult<R>>
  private query<T>(body: () => Promise<T>): Promise<T>
  private async query(textOrBody: string | (() => Promise<unknown>), params?: unknown[]): Promise<unknown> {
    try {
      return typeof textOrBody === 'string' ? await this.pool.query(textOrBody, params) : await textOrBody()
    } catch (error) {
      throw connectionError(error, this.displayUrl)
    }
  }
}

interface SessionRow {
  header: string
  records: number
  bytes: string
  summary: SummaryState
}

/** Where a writer's session stands: records stored (the header included), their bytes as JSONL, the summary. */
interface WriterState {
  records: number
  bytes: number
  state: SummaryState
}

/** Appends to one session. Each `write` is one statement: the lease check, the records and the summary together. */
class PostgresWriter implements SessionWriter {
  readonly path = undefined
  private closed = false

  constructor(
    private readonly pool: pg.Pool,
    private readonly id: string,
    private readonly lease: PostgresLease,
    private current: WriterState,
  ) {}

  async write(lines: readonly string[]): Promise<void> {
    if (!lines.length) return
    if (this.closed) throw new SessionError('closed', `session ${this.id} is closed; open the session again to append.`)
    if (!this.lease.held()) throw busyError(this.id, undefined)
    const state: SummaryState = structuredClone(this.current.state)
    let bytes = this.current.bytes
    for (const line of lines) {
      feedSummary(state, line.slice(0, PREFIX_CHARS), () => line)
      bytes += Buffer.byteLength(line) + 1
    }
    const summary = summaryOf(state, bytes)
    let result: pg.QueryResult<{ held: number }>
    try {
      result = await this.pool.query<{ held: number }>(
        `WITH lease AS (
           UPDATE rein_leases SET expires_at = now() + make_interval(secs => $3)
           WHERE session_id = $1 AND token = $2 RETURNING 1
         ), appended AS (
           INSERT INTO rein_events (session_id, seq, record)
           SELECT $1, ($4 + t.ord - 1)::integer, t.record FROM unnest($5::json[]) WITH ORDINALITY AS t(record, ord)
           WHERE EXISTS (SELECT 1 FROM lease)
           RETURNING 1
         ), summarized AS (
           UPDATE rein_sessions SET summary = $6, title = $7, turns = $8, updated_at = $9, bytes = $10, records = $11
           WHERE id = $1 AND EXISTS (SELECT 1 FROM lease) RETURNING 1
         )
         SELECT (SELECT count(*) FROM lease)::integer AS held`,
        [
          this.id,
          this.lease.token,
          this.lease.seconds,
          this.current.records - 1,
          lines,
          state,
          summary?.title ?? '',
          state.turns,
          summary?.updatedAt ?? 0,
          bytes,
          this.current.records + lines.length,
        ],
      )
    } catch (error) {
      throw new SessionError('write-failed', `cannot append to session ${this.id} in the PostgreSQL store: ${describe(error)}.`, {
        cause: error,
      })
    }
    if (result.rows[0]?.held !== 1) {
      this.lease.markLost()
      throw busyError(this.id, undefined)
    }
    this.current = { records: this.current.records + lines.length, bytes, state }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.lease.release()
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
