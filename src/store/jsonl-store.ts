import { randomBytes } from 'node:crypto'
import { fdatasyncSync, writeSync } from 'node:fs'
import { mkdir, open, readdir, rm, stat, truncate, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { SessionHeader } from '../session/events.js'
import { damagedLine, SessionError } from './errors.js'
import { cwdKey } from './home.js'
import { busyError, fileLeaseIsHeld, takeFileLease, type SessionLease } from './lease.js'
import { scanLines } from './line-reader.js'
import { JsonlSidecars } from './jsonl-sidecar.js'
import { SessionsFolderWatch } from './listing-watch.js'
import type {
  ReadEnd,
  ReadStart,
  RecordSink,
  SessionStore,
  SessionSummary,
  SessionWriter,
  StoredId,
  SummaryListener,
  SummaryWatch,
} from './store.js'
import { summarizeDirectory } from './summary-index.js'
import { syncDirectory } from '../fs/sync-directory.js'

/** Session ids are used as file names: letters, digits and dashes only, so an id can never name another path. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9-]*$/

/**
 * The embedded store: one file per session at `<home>/sessions/<cwd-key>/<id>.jsonl`, the header on line 1 and one
 * event per later line. Files are only ever appended to; the one exception is cutting a torn last line before the
 * first append after a crash, and those bytes are first copied to `<id>.jsonl.torn-<time>-<random>` beside the file.
 * One process appends to a session at a time: the writer lease is `<id>.jsonl.lock` beside the log (see lease.ts).
 */
export class JsonlStore implements SessionStore {
  /** `<home>/sessions`. */
  readonly root: string
  private readonly paths = new Map<string, string>()
  /** Open listing watches; `summaries` reads from one that covers the asked listing. */
  private readonly watches = new Set<SessionsFolderWatch>()
  /** Resume sidecars beside the logs: `<id>.jsonl.resume`. */
  readonly sidecars = new JsonlSidecars((id) => this.find(id), (id, sink, from) => this.read(id, sink, from))

  constructor(home: string) {
    this.root = join(home, 'sessions')
  }

  /** The file a new session with this header is written to. */
  pathFor(header: Pick<SessionHeader, 'id' | 'cwd'>): string {
    return join(this.root, cwdKey(header.cwd), `${checkedId(header.id)}.jsonl`)
  }

  async create(header: SessionHeader): Promise<SessionWriter> {
    const path = this.pathFor(header)
    await mkdir(dirname(path), { recursive: true, mode: 0o700 }).catch((error: unknown) => {
      throw fileError(error, dirname(path), 'create the directory')
    })
    const lease = this.takeLease(path, header.id)
    let file: FileHandle
    try {
      file = await open(path, 'wx', 0o600)
    } catch (error) {
      await lease.release()
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new SessionError('exists', `a session with id ${header.id} already exists at ${path}; use a new id.`)
      }
      throw fileError(error, path, 'create')
    }
    const writer = new JsonlWriter(path, file, 0, lease, () => this.touched(path))
    await writer.write([JSON.stringify(header)])
    syncDirectory(dirname(path))
    this.paths.set(header.id, path)
    return writer
  }

  /** `from` (default: the start) lets a resume read only the records after its sidecar (see `sidecars`). */
  async read(id: string, sink: RecordSink, from: ReadStart = { bytes: 0, records: 0 }): Promise<ReadEnd> {
    const path = await this.find(id)
    let file: FileHandle
    try {
      file = await open(path, 'r')
    } catch (error) {
      throw fileError(error, path, 'read')
    }
    try {
      let line = from.records
      let validBytes = from.bytes
      let bad: { line: number; bytes: number } | undefined
      const scan = await scanLines(file, from.bytes, (buffer, start, end, offset) => {
        line++
        if (bad) throw damagedLine(path, bad.line, 'is not valid JSON')
        let value: unknown
        try {
          value = JSON.parse(buffer.toString('utf8', start, end))
        } catch {
          bad = { line, bytes: end - start + 1 }
          return
        }
        sink(value, line)
        validBytes = offset + (end - start) + 1
      })
      if (scan.tail.length) {
        line++
        if (bad) throw damagedLine(path, bad.line, 'is not valid JSON')
        let value: unknown
        try {
          value = JSON.parse(scan.tail.toString('utf8'))
        } catch {
          return { records: line - 1, validBytes, endsWithNewline: true, torn: { line, bytes: scan.tail.length } }
        }
        sink(value, line)
        return { records: line, validBytes: scan.completeTo + scan.tail.length, endsWithNewline: false }
      }
      if (bad) return { records: line - 1, validBytes, endsWithNewline: true, torn: bad }
      return { records: line, validBytes, endsWithNewline: true }
    } finally {
      await file.close()
    }
  }

  async lease(id: string): Promise<SessionLease> {
    const path = await this.find(id)
    return this.takeLease(path, id)
  }

  async isLeased(id: string): Promise<boolean> {
    const lock = `${await this.find(id)}.lock`
    try {
      return fileLeaseIsHeld(lock, staleMs())
    } catch (error) {
      throw fileError(error, lock, 'read')
    }
  }

  async remove(id: string): Promise<void> {
    const path = await this.find(id)
    const lease = this.takeLease(path, id)
    try {
      await rm(`${path}.resume`, { force: true })
      await rm(path)
      this.touched(path)
      this.paths.delete(id)
      syncDirectory(dirname(path))
    } catch (error) {
      throw fileError(error, path, 'remove')
    } finally {
      await lease.release()
    }
  }

  async openAppend(id: string, end: ReadEnd, lease: SessionLease): Promise<SessionWriter> {
    const path = await this.find(id)
    if (!lease.held()) throw busyError(id, undefined)
    try {
      const size = (await stat(path)).size
      if (size > end.validBytes) await this.setTornTailAside(path, end.validBytes, size)
      const file = await open(path, 'a')
      const writer = new JsonlWriter(path, file, end.validBytes, lease, () => this.touched(path))
      if (!end.endsWithNewline) await writer.writeRaw('\n')
      return writer
    } catch (error) {
      if (error instanceof SessionError) throw error
      throw fileError(error, path, 'open for appending')
    }
  }

  async location(id: string): Promise<string> {
    return this.find(id)
  }

  async ids(): Promise<StoredId[]> {
    const ids: StoredId[] = []
    for (const key of await this.cwdKeys()) {
      const dir = join(this.root, key)
      const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return []
        throw fileError(error, dir, 'read')
      })
      for (const name of names) {
        if (name.endsWith('.jsonl')) ids.push({ id: name.slice(0, -'.jsonl'.length), cwdKey: key })
      }
    }
    return ids
  }

  async summaries(cwd: string | 'all'): Promise<SessionSummary[]> {
    const watched = [...this.watches].find((watch) => watch.covers(cwd))
    if (watched) return watched.summaries(cwd)
    const keys = cwd === 'all' ? await this.cwdKeys() : [cwdKey(cwd)]
    const all: SessionSummary[] = []
    for (const key of keys) {
      try {
        all.push(...(await summarizeDirectory(join(this.root, key))))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
        throw fileError(error, join(this.root, key), 'list')
      }
    }
    return all
  }

  /**
   * Watches the sessions folders the listing covers (`listing-watch.ts`); while the watch is open, `summaries` of what
   * it covers come from memory, re-reading only the files the file system said changed.
   */
  watchSummaries(cwd: string | 'all', listener: SummaryListener): SummaryWatch {
    const watch = new SessionsFolderWatch(this.root, cwd, {
      changed: () => listener.changed(),
      failed: (error) => {
        this.watches.delete(watch)
        listener.failed(error)
      },
    })
    this.watches.add(watch)
    if (!watch.covers(cwd)) this.watches.delete(watch)
    return {
      how: 'notify',
      close: () => {
        watch.close()
        this.watches.delete(watch)
      },
    }
  }

  /** Tells the open watches that this process changed the session file at `path`. */
  private touched(path: string): void {
    if (!this.watches.size) return
    const key = basename(dirname(path))
    const id = basename(path, '.jsonl')
    for (const watch of this.watches) watch.touched(key, id)
  }

  /** The file of a stored session; searches every cwd directory once per id. */
  private async find(id: string): Promise<string> {
    const known = this.paths.get(id)
    if (known) return known
    const name = `${checkedId(id)}.jsonl`
    for (const key of await this.cwdKeys()) {
      const path = join(this.root, key, name)
      const found = await stat(path).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return false
          throw fileError(error, path, 'read')
        },
      )
      if (found) {
        this.paths.set(id, path)
        return path
      }
    }
    throw new SessionError('not-found', `no session ${id} in ${this.root}; run \`rein sessions list --all\` to see the ids.`)
  }

  /** Rein's lock files sit beside the log they guard; how stale a lease may get comes from `REIN_LEASE_STALE_MS`. */
  private takeLease(path: string, id: string): SessionLease {
    try {
      return takeFileLease(`${path}.lock`, id, staleMs())
    } catch (error) {
      if (error instanceof SessionError) throw error
      throw fileError(error, `${path}.lock`, 'create the lock file')
    }
  }

  private async cwdKeys(): Promise<string[]> {
    try {
      const entries = await readdir(this.root, { withFileTypes: true })
      return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw fileError(error, this.root, 'read')
    }
  }

  /** Copies the bytes after the last complete record to a `.torn-<time>` file, syncs it, then cuts them off. */
  private async setTornTailAside(path: string, validBytes: number, size: number): Promise<void> {
    const source = await open(path, 'r')
    const torn = Buffer.alloc(size - validBytes)
    try {
      await source.read(torn, 0, torn.length, validBytes)
    } finally {
      await source.close()
    }
    const aside = await open(`${path}.torn-${Date.now()}-${randomBytes(4).toString('hex')}`, 'wx', 0o600)
    try {
      await aside.writeFile(torn)
      await aside.sync()
    } finally {
      await aside.close()
    }
    await truncate(path, validBytes)
  }
}

/** Appends to one session file. Every `write` is synced (fdatasync) before it resolves. */
class JsonlWriter implements SessionWriter {
  private closed = false

  constructor(
    readonly path: string,
    private readonly file: FileHandle,
    /** Bytes in the file that hold complete, durable records: the point a failed write is cut back to. */
    private size: number,
    private readonly lease: SessionLease,
    /** Called after every write that reached the file, so the store's listing watches see it at once. */
    private readonly wrote: () => void,
  ) {}

  async write(lines: readonly string[]): Promise<void> {
    if (!lines.length) return
    await this.writeRaw(`${lines.join('\n')}\n`)
  }

  async writeRaw(text: string): Promise<void> {
    if (this.closed) throw new SessionError('closed', `session file ${this.path} is closed; open the session again to append.`)
    if (!this.lease.held()) {
      throw busyError(this.path.slice(this.path.lastIndexOf('/') + 1, -'.jsonl'.length), undefined)
    }
    const bytes = Buffer.from(text, 'utf8')
    try {
      // Synchronous on purpose: a flush is a few kilobytes and one fdatasync at a step boundary, and the two trips
      // through libuv's thread pool cost more than the wait itself (measured in bench/agent-overhead.bench.mjs).
      let written = 0
      while (written < bytes.length) written += writeSync(this.file.fd, bytes, written, bytes.length - written)
      fdatasyncSync(this.file.fd)
      this.size += bytes.length
      this.wrote()
    } catch (error) {
      // Cut back a partial write so the file never holds half a record before later records.
      await this.file.truncate(this.size).catch(() => {
        // If even the cut fails, the next load treats the partial line as a torn tail and drops it.
      })
      throw fileError(error, this.path, 'write to')
    }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    try {
      await this.file.close()
    } finally {
      await this.lease.release()
    }
  }
}

/** `REIN_LEASE_STALE_MS` (a whole number of ms, for tests and slow shared disks), else the default. */
function staleMs(): number | undefined {
  const raw = process.env.REIN_LEASE_STALE_MS
  const value = raw ? Number(raw) : NaN
  return Number.isInteger(value) && value > 0 ? value : undefined
}

function checkedId(id: string): string {
  if (!SAFE_ID.test(id)) {
    throw new SessionError('not-found', `"${id}" is not a session id; ids hold only letters, digits and dashes.`)
  }
  return id
}


/** A file-system failure as one sentence a person can act on. */
function fileError(error: unknown, path: string, action: string): SessionError {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EACCES' || code === 'EPERM') {
    return new SessionError('unreadable', `cannot ${action} ${path}: permission denied; check its permissions.`, { cause: error })
  }
  if (code === 'ENOENT') {
    return new SessionError('not-found', `cannot ${action} ${path}: it does not exist.`, { cause: error })
  }
  if (code === 'ENOSPC') {
    return new SessionError('unreadable', `cannot ${action} ${path}: the disk is full; free some space and try again.`, { cause: error })
  }
  const detail = error instanceof Error ? error.message : String(error)
  return new SessionError('unreadable', `cannot ${action} ${path} (${detail}); check the path and try again.`, { cause: error })
}
