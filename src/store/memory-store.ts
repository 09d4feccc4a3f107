import type { SessionHeader } from '../session/events.js'
import { damagedLine, SessionError } from './errors.js'
import { cwdKey } from './home.js'
import { busyError, type LeaseOwner, type SessionLease } from './lease.js'
import type { ReadEnd, RecordSink, SessionStore, SessionSummary, SessionWriter, StoredId } from './store.js'
import { emptySummaryState, feedSummary, PREFIX_CHARS, summaryOf } from './summary-scan.js'

/**
 * A store that keeps each session as lines of JSON text in memory, for unit tests. It serializes and parses exactly
 * as the JSONL store does, so a session round-trips through it the same way; nothing survives the process.
 */
export class MemoryStore implements SessionStore {
  /** Every session's lines, header first. Tests may edit them to simulate damage. */
  readonly lines = new Map<string, string[]>()
  /** The sessions whose lease is held, with the holder. One MemoryStore stands for one machine's store. */
  private readonly leases = new Map<string, LeaseOwner>()
  /** Tests set this to make the Nth write from now on fail with the given error (1 = the next write). */
  failWrite: { after: number; error: Error } | undefined

  async create(header: SessionHeader): Promise<SessionWriter> {
    if (this.lines.has(header.id)) {
      throw new SessionError('exists', `a session with id ${header.id} already exists in memory; use a new id.`)
    }
    const lease = await this.lease(header.id)
    this.lines.set(header.id, [JSON.stringify(header)])
    return this.writer(header.id, lease)
  }

  async remove(id: string): Promise<void> {
    this.get(id)
    const lease = await this.lease(id)
    this.lines.delete(id)
    await lease.release()
  }

  async read(id: string, sink: RecordSink): Promise<ReadEnd> {
    const lines = this.get(id)
    let records = 0
    for (let i = 0; i < lines.length; i++) {
      let value: unknown
      try {
        value = JSON.parse(lines[i])
      } catch {
        if (i === lines.length - 1) {
          return { records, validBytes: 0, endsWithNewline: true, torn: { line: i + 1, bytes: lines[i].length } }
        }
        throw damagedLine(`memory:${id}`, i + 1, 'is not valid JSON')
      }
      sink(value, i + 1)
      records++
    }
    return { records, validBytes: 0, endsWithNewline: true }
  }

  async lease(id: string): Promise<SessionLease> {
    const holder = this.leases.get(id)
    if (holder) throw busyError(id, holder)
    const owner: LeaseOwner = { pid: process.pid, host: 'memory', startedAt: Date.now() }
    this.leases.set(id, owner)
    return {
      owner,
      held: () => this.leases.get(id) === owner,
      release: async () => {
        if (this.leases.get(id) === owner) this.leases.delete(id)
      },
    }
  }

  async isLeased(id: string): Promise<boolean> {
    this.get(id)
    return this.leases.has(id)
  }

  async openAppend(id: string, end: ReadEnd, lease: SessionLease): Promise<SessionWriter> {
    const lines = this.get(id)
    if (!lease.held()) throw busyError(id, undefined)
    lines.length = end.records
    return this.writer(id, lease)
  }

  async location(id: string): Promise<string> {
    this.get(id)
    return `memory:${id}`
  }

  async ids(): Promise<StoredId[]> {
    return [...this.lines].map(([id, lines]) => ({ id, cwdKey: cwdKey(headerCwd(lines)) }))
  }

  async summaries(cwd: string | 'all'): Promise<SessionSummary[]> {
    const key = cwd === 'all' ? undefined : cwdKey(cwd)
    const summaries: SessionSummary[] = []
    for (const lines of this.lines.values()) {
      if (key !== undefined && cwdKey(headerCwd(lines)) !== key) continue
      const state = emptySummaryState()
      for (const line of lines) feedSummary(state, line.slice(0, PREFIX_CHARS), () => line)
      const summary = summaryOf(state, lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0))
      if (summary) summaries.push(summary)
    }
    return summaries
  }

  private get(id: string): string[] {
    const lines = this.lines.get(id)
    if (!lines) throw new SessionError('not-found', `no session ${id} in memory; check the id.`)
    return lines
  }

  private writer(id: string, lease: SessionLease): SessionWriter {
    let closed = false
    return {
      path: undefined,
      write: async (lines) => {
        if (closed) throw new SessionError('closed', `session ${id} is closed; open it again to append.`)
        if (!lease.held()) throw busyError(id, undefined)
        if (this.failWrite && --this.failWrite.after <= 0) throw this.failWrite.error
        this.get(id).push(...lines)
      },
      close: async () => {
        closed = true
        await lease.release()
      },
    }
  }
}

function headerCwd(lines: string[]): string {
  try {
    const header = JSON.parse(lines[0]) as { cwd?: unknown }
    return typeof header.cwd === 'string' ? header.cwd : '/'
  } catch {
    // A damaged header belongs to no directory; the root keeps it listable with --all.
    return '/'
  }
}
