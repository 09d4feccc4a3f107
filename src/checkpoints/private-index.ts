import { closeSync, fstatSync, linkSync, lstatSync, openSync, readdirSync, renameSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { identityOf } from './index-identity.js'

/**
 * Private indexes: where the index writes no caller waits for are made (docs/checkpoints.md, "Deferred index writes
 * and a kill").
 *
 * What holds:
 * - **A deferred writer never locks the shadow index.** It works on `index.rein-<pid>-<n>`, a hard link of `index`
 *   (`GIT_INDEX_FILE`); git locks only `index.rein-<pid>-<n>.lock` and renames a new file over the link, so `index`
 *   itself is never written. A git that outlives a SIGKILLed Rein (the kill does not reach its children) therefore
 *   holds nothing the next command needs. The link shares every stat time with `index`, so git judges racily clean
 *   entries in it exactly as in `index`.
 * - **It replaces `index` only when its writes finished in a live Rein** (`installPrivateIndex`, called by the
 *   process that made it, after its git exited), under git's own `index.lock`, and only when `index` is still the very
 *   file it was linked from (an open descriptor pins that file, so its inode cannot be reused meanwhile): another
 *   process's staging since is never overwritten. Otherwise it is dropped. The index is a cache of stat data and a
 *   staging area that every staging checks against the workspace with `git status`, so a dropped write costs the next
 *   staging time, never correctness.
 * - **Blobs only a private index names are never removed under it.** It is made only under `index.lock`, and the
 *   cleanup of a failed add (orphans.ts) runs under `index.lock` and not at all while a live process has one.
 * - **Nothing is left for long.** The file and lock a killed Rein left are removed when the repository is next opened
 *   (`sweepPrivateIndexes`, before stale git locks are judged): when their process is gone, or when they are older than
 *   `STALE_PRIVATE_INDEX_MS` (a process id reused). Removing one that is still in use is safe: its install fails and
 *   is dropped as above.
 */

/** A private index older than this is removed whatever its process id says (ms). */
export const STALE_PRIVATE_INDEX_MS = 10 * 60_000

const NAME = /^index\.rein-(\d+)-(\d+)(\.lock)?$/

let made = 0

/** A private index in use: its file, and a descriptor of the `index` it was linked from. */
export interface PrivateIndex {
  gitDir: string
  file: string
  base: number
}

/**
 * Makes a private index of the shadow index, under `index.lock`, when the shadow index is still the file whose
 * identity (index-identity.ts) is `expected`: the one the caller's writes were worked out from. Undefined when it is
 * not, when the lock is held (another git is writing the index), or when the link cannot be made: the caller drops
 * its writes.
 */
export function openPrivateIndex(gitDir: string, expected: string): PrivateIndex | undefined {
  const index = join(gitDir, 'index')
  const file = join(gitDir, `index.rein-${process.pid}-${++made}`)
  return underIndexLock(gitDir, () => {
    if (identityOf(index) !== expected) return undefined
    const base = openSync(index, 'r')
    try {
      linkSync(index, file)
    } catch (error) {
      closeSync(base)
      throw error
    }
    return { gitDir, file, base }
  })
}

/**
 * Puts the private index in place of the shadow index, when that is still the file it was linked from; returns the
 * shadow index's identity then (taken under the lock, so it is the installed file's), or undefined when it was not
 * installed. Either way the private index is then closed (`closePrivateIndex`).
 */
export function installPrivateIndex(own: PrivateIndex): string | undefined {
  const index = join(own.gitDir, 'index')
  return underIndexLock(own.gitDir, () => {
    const now = statSync(index)
    const base = fstatSync(own.base)
    if (now.ino !== base.ino || now.dev !== base.dev) return undefined
    // Nothing was written: the private name is still a link of `index` (a rename between two links does nothing).
    if (lstatSync(own.file).ino === base.ino) unlinkSync(own.file)
    else renameSync(own.file, index)
    return identityOf(index)
  })
}

/** Lets go of a private index: its descriptor, and its file when it was not installed. */
export function closePrivateIndex(own: PrivateIndex): void {
  closeSync(own.base)
  removeFile(own.file)
}

/**
 * Whether a live process has a private index in this repository (`own`, a caller's own private index, aside). The
 * caller holds `index.lock`, so no new one can appear meanwhile.
 */
export function privateIndexInUse(gitDir: string, own?: string): boolean {
  for (const name of entriesOf(gitDir)) {
    const match = NAME.exec(name)
    if (!match || join(gitDir, name) === own || join(gitDir, name) === `${own}.lock`) continue
    if (alive(Number(match[1]))) return true
  }
  return false
}

/** Removes the private indexes (and their locks) whose process is gone or that are older than `STALE_PRIVATE_INDEX_MS`. */
export function sweepPrivateIndexes(gitDir: string, now = Date.now()): void {
  for (const name of entriesOf(gitDir)) {
    const match = NAME.exec(name)
    if (!match) continue
    const file = join(gitDir, name)
    if (alive(Number(match[1])) && !olderThan(file, now - STALE_PRIVATE_INDEX_MS)) continue
    removeFile(file)
  }
}

/** Runs `work` holding `index.lock` (created exclusively, as git does); undefined when it is held or `work` throws. */
function underIndexLock<T>(gitDir: string, work: () => T | undefined): T | undefined {
  const lock = join(gitDir, 'index.lock')
  try {
    closeSync(openSync(lock, 'wx'))
  } catch {
    // Another git holds the index (or the disk cannot take an empty file): the caller drops its deferred writes.
    return undefined
  }
  try {
    return work()
  } catch {
    // No index yet, a link or rename refused, a private index swept away meanwhile: nothing was installed.
    return undefined
  } finally {
    removeFile(lock)
  }
}

/** Whether a process with this id exists (one of another user counts: it may be a Rein run by them). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function olderThan(file: string, time: number): boolean {
  try {
    return lstatSync(file).mtimeMs < time
  } catch {
    // Gone meanwhile: nothing to remove.
    return false
  }
}

/** A folder's entries; none when it does not exist (no repository, no packs yet). */
export function entriesOf(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

function removeFile(file: string): void {
  try {
    unlinkSync(file)
  } catch {
    // Already gone (installed, or removed by a sweep): nothing to remove.
  }
}
