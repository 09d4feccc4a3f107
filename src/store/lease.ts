import { closeSync, linkSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { SessionError } from './errors.js'
import { processExists, processStart } from './process-identity.js'

export { processExists }

/**
 * The writer lease of one session: at most one process appends to a session at a time.
 *
 * Invariants:
 * - A session is appended to only by the holder of its lease; a writer checks it still holds the lease before
 *   every write and fails (writing nothing) when it does not.
 * - A lease is taken before the session is read for appending, so the holder always appends after the true end.
 * - A lease whose owner is gone is taken over. On this host the process table decides, never the clock: the owner's
 *   pid no longer exists, or it now names another process (its start time differs from the one recorded). A live
 *   owner on this host keeps its lease however late its refresh is (a loaded machine, a stopped process, a clock
 *   step). A lease of another host is judged by its age: not refreshed for `staleMs`. A live holder refreshes it
 *   every `staleMs / 4`.
 * - A lock file that holds no owner (empty or damaged: a writer that failed between create and write, or a crash of
 *   an older Rein) is stale once older than `FILL_GRACE_MS`; Rein itself never shows an unfilled lock, because the
 *   owner is written to a private file first and linked into place.
 * - Reading a session (show, export, verify, list, fork's source) never needs the lease.
 *
 * The JSONL store keeps the lease as `<id>.jsonl.lock` beside the log, holding the owner (`LeaseOwner`) as JSON; its
 * modification time is the last refresh.
 */
export interface LeaseOwner {
  pid: number
  host: string
  /** When the owner took the lease, ms since the epoch. */
  startedAt: number
  /** The owner process's start as the kernel counts it (`/proc/<pid>/stat`), where there is one: tells pid reuse apart. */
  proc?: string
}

/** A held lease. `release` is idempotent; `held` is false once released or taken over by another process. */
export interface SessionLease {
  readonly owner: LeaseOwner
  held(): boolean
  release(): Promise<void>
}

/** How long a lease of another host may go unrefreshed before it is taken over. */
export const DEFAULT_STALE_MS = 30_000

/** How long a lock file without an owner may be between its creation and its write (an older Rein's window: µs). */
export const FILL_GRACE_MS = 2_000

/** How often a holder retries a lock file it could not read (EMFILE, EIO...) before it gives the error up. */
const CHECK_ATTEMPTS = 3

/** The refusal sentence: names the session and the process holding it, and what to do instead. */
export function busyError(id: string, holder: LeaseOwner | undefined): SessionError {
  const who = holder
    ? `process ${holder.pid} on ${holder.host === hostname() ? 'this machine' : holder.host} (since ${new Date(holder.startedAt).toISOString()})`
    : 'another process'
  return new SessionError(
    'busy',
    `Session ${id} is open for writing by ${who}; wait for it to finish, or continue a copy with rein --fork ${id}.`,
    { cause: { sessionId: id, holder } },
  )
}

/** The session a `busy` refusal names, for front ends that offer to fork it instead. */
export function busySessionId(error: unknown): string | undefined {
  if (!(error instanceof SessionError) || error.code !== 'busy') return undefined
  const cause = error.cause as { sessionId?: unknown } | undefined
  return typeof cause?.sessionId === 'string' ? cause.sessionId : undefined
}

/** Takes the lease file at `path` for session `id`, or throws a `busy` SessionError naming the holder. */
export function takeFileLease(path: string, id: string, staleMs = DEFAULT_STALE_MS): SessionLease {
  const proc = processStart(process.pid)
  const owner: LeaseOwner = { pid: process.pid, host: hostname(), startedAt: Date.now(), ...(proc ? { proc } : {}) }
  for (let attempt = 0; attempt < 3; attempt++) {
    const ino = tryCreate(path, owner)
    if (ino !== undefined) return new FileLease(path, owner, ino, staleMs)
    const current = readLease(path)
    if (current && !isStale(current, staleMs)) throw busyError(id, current.owner)
    // Stale (or vanished between the create and the read): remove it under the takeover guard, then try again.
    takeOverStale(path, current, staleMs)
  }
  throw busyError(id, readLease(path)?.owner)
}

/** True when the lease file at `path` exists and is not stale: its holder would refuse another writer. */
export function fileLeaseIsHeld(path: string, staleMs = DEFAULT_STALE_MS): boolean {
  const current = readLease(path)
  return current !== undefined && !isStale(current, staleMs)
}

class FileLease implements SessionLease {
  private released = false
  private readonly timer: NodeJS.Timeout
  private readonly written: string

  constructor(
    private readonly path: string,
    readonly owner: LeaseOwner,
    private readonly ino: number,
    staleMs: number,
  ) {
    this.written = JSON.stringify(owner)
    this.timer = setInterval(() => this.refresh(), Math.max(50, Math.floor(staleMs / 4)))
    this.timer.unref()
  }

  /**
   * False only when the lock is gone or is another file now. A lock that cannot be read (EMFILE, EIO...) is not a
   * lost lease: the read is retried, then its error is thrown, so the writer reports the real cause.
   */
  held(): boolean {
    if (this.released) return false
    for (let attempt = 1; ; attempt++) {
      try {
        // The inode alone is not enough: a file system may give a new lock file the inode of the removed one.
        return statSync(this.path).ino === this.ino && readFileSync(this.path, 'utf8') === this.written
      } catch (error) {
        // The lock file is gone: someone removed it, so this process no longer holds the lease.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
        if (attempt >= CHECK_ATTEMPTS) throw error
      }
    }
  }

  async release(): Promise<void> {
    if (this.released) return
    clearInterval(this.timer)
    if (this.heldOrFalse()) {
      try {
        unlinkSync(this.path)
      } catch {
        // Already removed: nothing is left to release.
      }
    }
    this.released = true
  }

  private heldOrFalse(): boolean {
    try {
      return this.held()
    } catch {
      // Unreadable: leave the lock alone; the refresh and the next write try again.
      return false
    }
  }

  private refresh(): void {
    if (!this.heldOrFalse()) return
    const now = new Date()
    try {
      utimesSync(this.path, now, now)
    } catch {
      // A failed refresh only brings the stale time closer; the next tick tries again.
    }
  }
}

interface LeaseFile {
  owner: LeaseOwner | undefined
  ino: number
  mtimeMs: number
}

/**
 * Creates the lock file holding the owner; its inode, or undefined when a lock already exists. The owner is written
 * to a private file beside it and hard-linked into place, so no other process ever reads an unfilled lock; a file
 * system without hard links gets an O_EXCL create and write instead. Whatever this call created is removed when it
 * fails (ENOSPC on the write, say), so a failed start leaves no lock behind.
 */
function tryCreate(path: string, owner: LeaseOwner): number | undefined {
  const text = JSON.stringify(owner)
  const privateFile = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  writeNew(privateFile, text)
  try {
    linkSync(privateFile, path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return undefined
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw error
    return createInPlace(path, text)
  } finally {
    removeQuietly(privateFile)
  }
  return statSync(path).ino
}

function createInPlace(path: string, text: string): number | undefined {
  try {
    writeNew(path, text)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined
    throw error
  }
  return statSync(path).ino
}

/** Creates `path` with O_EXCL and writes `text`; a failed write removes the file it created. */
function writeNew(path: string, text: string): void {
  const fd = openSync(path, 'wx', 0o600)
  try {
    const bytes = Buffer.from(text, 'utf8')
    let written = 0
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written)
  } catch (error) {
    closeSync(fd)
    removeQuietly(path)
    throw error
  }
  closeSync(fd)
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // Already gone (or never made): nothing is left to remove.
  }
}

function readLease(path: string): LeaseFile | undefined {
  try {
    const stat = statSync(path)
    let owner: LeaseOwner | undefined
    try {
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LeaseOwner>
      if (typeof parsed.pid === 'number' && typeof parsed.host === 'string' && typeof parsed.startedAt === 'number') {
        owner = { pid: parsed.pid, host: parsed.host, startedAt: parsed.startedAt }
        if (typeof parsed.proc === 'string') owner.proc = parsed.proc
      }
    } catch {
      // Empty or damaged: an owner between create and write (older Rein), or one that failed there. Judged by age.
    }
    return { owner, ino: stat.ino, mtimeMs: stat.mtimeMs }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

function isStale(lease: LeaseFile, staleMs: number): boolean {
  const owner = lease.owner
  if (!owner) return Date.now() - lease.mtimeMs > Math.min(staleMs, FILL_GRACE_MS)
  if (owner.host !== hostname()) return Date.now() - lease.mtimeMs > staleMs
  if (!processExists(owner.pid)) return true
  // The pid is alive; it is the owner unless the kernel says it started at another time (the pid was reused).
  if (owner.proc === undefined) return false
  const now = processStart(owner.pid)
  return now !== undefined && now !== owner.proc
}

/**
 * Removes a stale lock file. Takeovers are serialized by an O_EXCL guard file, and the lock is removed only if it is
 * still the same file judged stale, so two processes taking over at once cannot remove each other's fresh lease.
 */
function takeOverStale(path: string, judged: LeaseFile | undefined, staleMs: number): void {
  if (!judged) return
  const guard = `${path}.takeover`
  let fd: number
  try {
    fd = openSync(guard, 'wx', 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    // Another process is taking over; a guard left by a crash mid-takeover is cleared once it is old.
    try {
      if (Date.now() - statSync(guard).mtimeMs > staleMs) unlinkSync(guard)
    } catch {
      // The guard went away meanwhile: the other takeover finished.
    }
    return
  }
  try {
    const now = readLease(path)
    if (now && now.ino === judged.ino && isStale(now, staleMs)) unlinkSync(path)
  } finally {
    closeSync(fd)
    unlinkSync(guard)
  }
}
