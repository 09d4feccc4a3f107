import { closeSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'
import { SessionError } from './errors.js'

/**
 * The writer lease of one session: at most one process appends to a session at a time.
 *
 * Invariants:
 * - A session is appended to only by the holder of its lease; a writer checks it still holds the lease before
 *   every write and fails (writing nothing) when it does not.
 * - A lease is taken before the session is read for appending, so the holder always appends after the true end.
 * - A lease whose owner is gone is taken over: the owner ran on this host and its pid no longer exists, or the lease
 *   was not refreshed for `staleMs` (any host). A live holder refreshes it every `staleMs / 4`.
 * - Reading a session (show, export, verify, list, fork's source) never needs the lease.
 *
 * The JSONL store keeps the lease as `<id>.jsonl.lock` beside the log, created with O_EXCL and holding the owner
 * (`LeaseOwner`) as JSON; its modification time is the last refresh.
 */
export interface LeaseOwner {
  pid: number
  host: string
  /** When the owner took the lease, ms since the epoch. */
  startedAt: number
}

/** A held lease. `release` is idempotent; `held` is false once released or taken over by another process. */
export interface SessionLease {
  readonly owner: LeaseOwner
  held(): boolean
  release(): Promise<void>
}

/** How long a lease may go unrefreshed before another process takes it over. */
export const DEFAULT_STALE_MS = 30_000

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
  const owner: LeaseOwner = { pid: process.pid, host: hostname(), startedAt: Date.now() }
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

  held(): boolean {
    if (this.released) return false
    try {
      // The inode alone is not enough: a file system may give a new lock file the inode of the removed one.
      return statSync(this.path).ino === this.ino && readFileSync(this.path, 'utf8') === this.written
    } catch {
      // The lock file is gone: someone removed it, so this process no longer holds the lease.
      return false
    }
  }

  async release(): Promise<void> {
    if (this.released) return
    clearInterval(this.timer)
    if (this.held()) {
      try {
        unlinkSync(this.path)
      } catch {
        // Already removed: nothing is left to release.
      }
    }
    this.released = true
  }

  private refresh(): void {
    if (!this.held()) return
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

/** Creates the lock file exclusively, writing the owner; its inode, or undefined when it already exists. */
function tryCreate(path: string, owner: LeaseOwner): number | undefined {
  let fd: number
  try {
    fd = openSync(path, 'wx', 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined
    throw error
  }
  try {
    writeSync(fd, JSON.stringify(owner))
  } finally {
    closeSync(fd)
  }
  return statSync(path).ino
}

function readLease(path: string): LeaseFile | undefined {
  try {
    const stat = statSync(path)
    let owner: LeaseOwner | undefined
    try {
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LeaseOwner>
      if (typeof parsed.pid === 'number' && typeof parsed.host === 'string' && typeof parsed.startedAt === 'number') {
        owner = { pid: parsed.pid, host: parsed.host, startedAt: parsed.startedAt }
      }
    } catch {
      // Written but not yet filled (the owner is between create and write), or damaged: judged by its age alone.
    }
    return { owner, ino: stat.ino, mtimeMs: stat.mtimeMs }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

function isStale(lease: LeaseFile, staleMs: number): boolean {
  if (Date.now() - lease.mtimeMs > staleMs) return true
  const owner = lease.owner
  if (!owner || owner.host !== hostname()) return false
  return !processExists(owner.pid)
}

export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
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
