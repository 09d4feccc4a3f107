import { mkdirSync, readdirSync, watch, type FSWatcher } from 'node:fs'
import { join } from 'node:path'
import { cwdKey } from './home.js'
import type { SessionSummary, SummaryListener } from './store.js'
import { indexDirectory, summarizeFile, type IndexEntry } from './summary-index.js'

/**
 * The JSONL store's listing, kept current by file-system notification instead of re-reading the sessions folders.
 *
 * What holds while the watch is open (between construction and `close`, until a failure):
 * - Every cwd folder the listing covers is watched, and so is `sessions/` itself: a folder made later (the first
 *   session of a new workspace) is watched from the moment its creation is seen, and scanned whole once.
 * - The watch is opened before a folder is scanned, so a change made during the scan is not lost: it marks the file
 *   dirty and the next `summaries()` reads it again.
 * - `summaries()` re-reads only the files notified since the last call (a grown log only from its last scanned
 *   byte, as the folder index does), never stats or lists the others. The cache is never older than the last event
 *   the process has received, nor than this process's own last write or removal (the store marks those directly).
 * - `changed()` is called for every notification that can change a listing row: a session file made, appended to or
 *   deleted, and a lease lock made or deleted (a session starting or ending elsewhere). Lock refreshes (mtime only),
 *   the folder index, sidecars and temporary files are ignored. Bursts are the caller's to debounce.
 * - A failure to watch (the inotify limit, a folder that cannot be read) closes every watcher, clears the cache and
 *   calls `failed()` once; the store then lists from the folders again and the caller re-checks on a timer.
 * - `close()` releases every watcher; nothing more is called after it.
 * What does not hold: if the kernel's event queue overflows (`fs.inotify.max_queued_events`, 16,384 by default, in one
 * burst), Node drops the overflow without a word, and a row stays stale until its file changes again or the last
 * page leaves (the next page's watch scans afresh).
 */
export class SessionsFolderWatch {
  private readonly folders = new Map<string, Folder>()
  private rootWatcher: FSWatcher | undefined
  private closed = false
  private queue: Promise<void> = Promise.resolve()

  constructor(
    /** `<home>/sessions`. */
    private readonly root: string,
    /** The listing it serves: one working directory's sessions, or all of them. */
    readonly cwd: string | 'all',
    private readonly listener: SummaryListener,
  ) {
    try {
      mkdirSync(root, { recursive: true, mode: 0o700 })
      this.rootWatcher = this.open(root, (event, name) => this.rootEvent(name))
      for (const key of this.coveredKeys()) this.addFolder(key)
    } catch (error) {
      this.close()
      // Told after construction returns, so the caller already holds the watch it is told about.
      queueMicrotask(() => this.listener.failed(asError(error)))
    }
  }

  /**
   * True while the watch serves exactly the listing `cwd`. Other listings (one session's folder, asked by a reader
   * that must see an append the moment it is made) are read from the folders as without a watch.
   */
  covers(cwd: string | 'all'): boolean {
    return !this.closed && this.cwd === cwd
  }

  /**
   * This process wrote or removed session `id` in cwd folder `key`: marked at once, so a listing asked right after it
   * never waits for the file system's notification to arrive.
   */
  touched(key: string, id: string): void {
    const folder = this.folders.get(key)
    if (folder) folder.dirty.add(id)
    else if (this.cwd === 'all' || key === cwdKey(this.cwd)) this.guarded(() => this.addFolder(key))
  }

  /** The summaries of the covered sessions, re-reading only the files notified since the last call. */
  summaries(cwd: string | 'all'): Promise<SessionSummary[]> {
    // One refresh at a time: a whole scan that finished after a newer single-file read would put the older row back.
    const next = this.queue.then(() => this.read(cwd))
    this.queue = next.then(
      () => undefined,
      () => undefined,
    )
    return next
  }

  private async read(cwd: string | 'all'): Promise<SessionSummary[]> {
    const keys = cwd === 'all' ? [...this.folders.keys()] : [cwdKey(cwd)]
    const all: SessionSummary[] = []
    for (const key of keys) {
      const folder = this.folders.get(key)
      if (!folder) continue
      await this.refresh(key, folder)
      for (const entry of folder.entries.values()) if (entry.summary) all.push(entry.summary)
    }
    return all
  }

  /** How many file-system watchers are open now: `sessions/` and each covered folder; 0 once closed or failed. */
  get watching(): number {
    return (this.rootWatcher && !this.closed ? 1 : 0) + this.folders.size
  }

  close(): void {
    this.closed = true
    this.rootWatcher?.close()
    for (const folder of this.folders.values()) folder.watcher.close()
    this.folders.clear()
  }

  private coveredKeys(): string[] {
    if (this.cwd !== 'all') return [cwdKey(this.cwd)]
    return readdirSync(this.root, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name)
  }

  /** Starts watching one cwd folder (if it exists) and marks it for a whole scan. */
  private addFolder(key: string): void {
    if (this.folders.has(key) || this.closed) return
    const dir = join(this.root, key)
    let watcher: FSWatcher
    try {
      watcher = this.open(dir, (event, name) => this.folderEvent(key, event, name))
    } catch (error) {
      // Not there (yet, or any more): the root's watcher says when it appears.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return
      throw error
    }
    this.folders.set(key, { watcher, entries: new Map(), dirty: new Set(), whole: true })
  }

  private rootEvent(name: string | null): void {
    if (name === null) {
      this.guarded(() => this.coveredKeys().forEach((key) => this.addFolder(key)))
    } else if (this.cwd === 'all' || name === cwdKey(this.cwd)) {
      // The folder was made, removed or replaced: a watcher on a removed folder hears nothing of its successor, so
      // watch whatever is there now afresh (nothing, when it is gone).
      this.folders.get(name)?.watcher.close()
      this.folders.delete(name)
      this.guarded(() => this.addFolder(name))
    } else {
      return
    }
    if (!this.closed) this.listener.changed()
  }

  /** Runs a step that starts watchers; a failure fails the whole watch. */
  private guarded(step: () => void): void {
    try {
      step()
    } catch (error) {
      this.fail(error)
    }
  }

  private folderEvent(key: string, event: string, name: string | null): void {
    const folder = this.folders.get(key)
    if (!folder) return
    if (name === null) folder.whole = true
    else if (name.endsWith('.jsonl')) folder.dirty.add(name.slice(0, -'.jsonl'.length))
    else if (!(name.endsWith('.jsonl.lock') && event === 'rename')) return
    this.listener.changed()
  }

  /** Brings one folder's entries up to date: a whole scan when asked for, else only the dirty files. */
  private async refresh(key: string, folder: Folder): Promise<void> {
    const dir = join(this.root, key)
    if (folder.whole) {
      folder.whole = false
      folder.dirty.clear()
      let entries: Record<string, IndexEntry>
      try {
        entries = await indexDirectory(dir)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error
        // The folder went away (or was never one): its sessions are no longer listed; a new folder of that name is seen by the root.
        folder.watcher.close()
        if (this.folders.get(key) === folder) this.folders.delete(key)
        return
      }
      folder.entries = new Map(Object.entries(entries))
      return
    }
    for (const id of folder.dirty) {
      folder.dirty.delete(id)
      const result = summarizeFile(join(dir, `${id}.jsonl`), folder.entries.get(id))
      if (result) folder.entries.set(id, result.entry)
      else folder.entries.delete(id)
    }
  }

  private open(dir: string, onEvent: (event: string, name: string | null) => void): FSWatcher {
    const watcher = watch(dir, { persistent: false }, (event, name) => {
      if (!this.closed) onEvent(event, name)
    })
    watcher.on('error', (error) => this.fail(error))
    return watcher
  }

  private fail(error: unknown): void {
    if (this.closed) return
    this.close()
    this.listener.failed(asError(error))
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}

interface Folder {
  watcher: FSWatcher
  /** The folder's sessions as last read, by id. */
  entries: Map<string, IndexEntry>
  /** Sessions notified since the last refresh. */
  dirty: Set<string>
  /** The folder must be scanned whole (first sight, or a notification without a file name). */
  whole: boolean
}
