import { lstatSync, readdirSync, readFileSync, watch, type FSWatcher, type Stats } from 'node:fs'
import { join, relative, sep } from 'node:path'

/**
 * A feed of the changes made under one directory tree (docs/checkpoints.md, "Speed"): one inotify watch per directory
 * (`fs.watch` of each directory, not Node's `recursive` option, so the feed knows when every directory is watched and
 * can leave some out). It answers one question soundly, "was anything written under the tree since this mark?", and a
 * second on a best-effort basis, "which paths?" (`changedSince`, undefined when it cannot tell).
 *
 * What holds:
 * - A mark is taken only when every directory is watched; before that, and after any error, overflow of the path
 *   list, or a directory it could not watch, `mark()` returns undefined and `quietSince` false: the caller walks.
 * - Ordering: the kernel queues an inotify event inside the write itself, and libuv reads the queue only when the
 *   event loop polls. `mark()` and `quietSince()` first let the loop poll twice (two `setImmediate` hops: the first
 *   may run in the same iteration as the caller, the second runs after a fresh poll), so every write that finished
 *   before the call has been counted.
 * - A kernel queue overflow drops events only after 16,384 queued ones, which are still read: a quiet answer is never
 *   given across an overflow. The path list is capped (`MAX_PATHS`); past it only the quiet answer is kept.
 * - A directory created (or moved in) is watched, with everything under it, as its event arrives, before the event
 *   counts; a write inside it before the watch exists is still after the mark the event moved past.
 * - Not seen by any inotify feed: writes through a hard link from outside the tree, writes through a shared `mmap`,
 *   and other machines writing to a network filesystem. The feed is only offered on local filesystems; callers keep
 *   a full walk wherever losing a change could lose work (docs/checkpoints.md).
 */
export interface ChangeFeed {
  /** The feed's position now, or undefined when it cannot vouch for what follows (not ready, broken). */
  mark(): Promise<FeedMark | undefined>
  /** True only when the feed is sure nothing under the tree changed since `mark`. */
  quietSince(mark: FeedMark | undefined): Promise<boolean>
  /**
   * The paths (relative, `/`-separated) changed since `mark`, or undefined when unsure. A directory's path among them
   * means anything under it may have changed (it was created, removed or moved).
   */
  changedSince(mark: FeedMark | undefined): Promise<ReadonlySet<string> | undefined>
  /** Resolves when every directory is watched (or the feed gave up). */
  readonly ready: Promise<void>
  /** Why the feed gave up, once it did. */
  readonly broken: string | undefined
  close(): void
}

export interface FeedMark {
  readonly feed: object
  readonly events: number
  readonly epoch: number
}

export interface ChangeFeedOptions {
  /** Directories (relative, `/`-separated) never watched nor descended into; events for paths under them are ignored. */
  skip?: (relativePath: string, name: string) => boolean
  /** Give up (the caller walks) past this many directories. */
  maxDirectories?: number
  /** The feed starts only when this resolves true (`feedSupported`); false gives up at once. */
  allowed?: Promise<boolean>
  /** Starts a watch; `fs.watch` by default (tests pass one that fails). */
  watcher?: (path: string, listener: (event: string, name: string | Buffer | null) => void) => FSWatcher
}

/** How many changed paths the feed remembers before it answers only "something changed". */
export const MAX_PATHS = 10_000
export const DEFAULT_MAX_DIRECTORIES = 20_000

/** Filesystems whose changes inotify sees (statfs magic numbers): ext2/3/4, xfs, btrfs, tmpfs, overlayfs, f2fs, zfs. */
const LOCAL_FILESYSTEMS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0xf2f52010, 0x2fc12fc1])

/** Whether a change feed can be trusted for `root`: Linux, and a local filesystem. */
export async function feedSupported(root: string): Promise<boolean> {
  if (process.platform !== 'linux') return false
  try {
    const { statfs } = await import('node:fs/promises')
    return LOCAL_FILESYSTEMS.has((await statfs(root)).type)
  } catch {
    // statfs unavailable or the root unreadable: no feed, the caller walks.
    return false
  }
}

const hop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** Lets the event loop poll the inotify queue at least once after this call. */
async function drain(): Promise<void> {
  await hop()
  await hop()
}

export function watchTree(root: string, options: ChangeFeedOptions = {}): ChangeFeed {
  const skip = options.skip ?? (() => false)
  const maxDirectories = options.maxDirectories ?? DEFAULT_MAX_DIRECTORIES
  const start = options.watcher ?? ((path, listener) => watch(path, { persistent: false }, listener))
  const watchers = new Map<string, FSWatcher>()
  /** Each changed path, with the number of the last event that named it. */
  const paths = new Map<string, number>()
  let events = 0
  let pathsLost = 0
  let broken: string | undefined
  let readyAt = -1
  let epoch = 0
  const feed = {}

  const giveUp = (why: string): void => {
    if (broken) return
    broken = why
    for (const watcher of watchers.values()) watcher.close()
    watchers.clear()
  }

  const toRelative = (absolute: string): string => relative(root, absolute).split(sep).join('/')

  const noteChange = (rel: string | undefined): void => {
    events++
    if (rel !== undefined && paths.size < MAX_PATHS) return void paths.set(rel, events)
    paths.clear()
    pathsLost = events
  }

  /** Watches `dir` and every directory under it; false when the feed gave up. */
  const watchDirectory = (dir: string): boolean => {
    const pending = [dir]
    while (pending.length && !broken) {
      const current = pending.pop() as string
      if (watchers.has(current)) continue
      if (watchers.size >= maxDirectories) {
        giveUp(`more than ${maxDirectories} directories to watch`)
        return false
      }
      try {
        const watcher = start(current, (event, name) => onEvent(current, event, name))
        watcher.on('error', (error: Error) => giveUp(`a watch failed: ${error.message}`))
        watchers.set(current, watcher)
        for (const entry of readdirSync(current, { withFileTypes: true })) {
          if (!entry.isDirectory()) continue
          const child = join(current, entry.name)
          if (!skip(toRelative(child), entry.name)) pending.push(child)
        }
      } catch (error) {
        // Gone meanwhile: its parent's event already counts the change. Anything else (ENOSPC: the watch limit) ends the feed.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' && current !== root) continue
        giveUp(`could not watch ${current}: ${error instanceof Error ? error.message : String(error)}`)
        return false
      }
    }
    return !broken
  }

  const unwatchUnder = (absolute: string): void => {
    for (const [path, watcher] of watchers) {
      if (path !== absolute && !path.startsWith(absolute + sep)) continue
      watcher.close()
      watchers.delete(path)
    }
  }

  const onEvent = (dir: string, event: string, name: string | Buffer | null): void => {
    if (broken) return
    if (name === null || name === undefined) return noteChange(undefined)
    const text = typeof name === 'string' ? name : name.toString('utf8')
    const absolute = join(dir, text)
    const rel = toRelative(absolute)
    if (skip(rel, text)) return
    let stat: Stats | undefined
    try {
      stat = lstatSync(absolute)
    } catch {
      // Removed or moved away: counted below.
    }
    // A watched directory removed, moved, or replaced (the new one may even reuse the inode number): its watches
    // end, and a directory there now is watched anew.
    if (event === 'rename' && watchers.has(absolute)) unwatchUnder(absolute)
    // A new directory is watched before its event counts, so no later write inside it can go unseen.
    if (stat?.isDirectory() && !watchers.has(absolute)) watchDirectory(absolute)
    if (text === '.gitignore' && negatesSkipped(absolute)) giveUp('a .gitignore re-includes a directory the feed does not watch')
    noteChange(rel)
  }

  const negatesSkipped = (file: string): boolean => {
    try {
      return /^\s*!.*node_modules/m.test(readFileSync(file, 'utf8'))
    } catch {
      return false
    }
  }

  const ready = (async () => {
    if (!(await (options.allowed ?? Promise.resolve(true)))) return giveUp('no change feed on this filesystem')
    await hop()
    if (watchDirectory(root)) {
      readyAt = events
      epoch++
    }
  })()

  return {
    ready,
    get broken() {
      return broken
    },
    async mark() {
      await ready
      await drain()
      if (broken || readyAt < 0) return undefined
      return { feed, events, epoch }
    },
    async quietSince(mark) {
      await drain()
      return !broken && mark !== undefined && mark.feed === feed && mark.epoch === epoch && events === mark.events
    },
    async changedSince(mark) {
      await drain()
      if (broken || mark === undefined || mark.feed !== feed || mark.epoch !== epoch || pathsLost > mark.events) return undefined
      const changed = new Set<string>()
      for (const [path, last] of paths) if (last > mark.events) changed.add(path)
      return changed
    },
    close() {
      giveUp('closed')
    },
  }
}

/** A feed some part of Rein started for a tree, offered to other readers in the process (the file-changes reminder). */
export interface SharedFeed {
  feed: ChangeFeed
  /** Which paths the feed covers: relative, `/`-separated; false for a path under a directory it does not watch. */
  covers(relativePath: string): boolean
}

const shared = new Map<string, SharedFeed>()

/** Offers `feed` for `root` until it is withdrawn (`withdrawFeed`) or closed. */
export function offerFeed(root: string, feed: ChangeFeed, skip: NonNullable<ChangeFeedOptions['skip']>): void {
  shared.set(root, {
    feed,
    covers: (path) => {
      const parts = path.split('/')
      for (let i = 1; i < parts.length; i++) if (skip(parts.slice(0, i).join('/'), parts[i - 1])) return false
      return true
    },
  })
}

export function withdrawFeed(root: string, feed: ChangeFeed): void {
  if (shared.get(root)?.feed === feed) shared.delete(root)
}

/** The feed offered for `root`, if one is and it has not given up. */
export function feedFor(root: string): SharedFeed | undefined {
  const found = shared.get(root)
  return found && !found.feed.broken ? found : undefined
}
