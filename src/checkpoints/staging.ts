import { lstatSync, type Stats } from 'node:fs'
import { join } from 'node:path'
import { identityOf } from './index-identity.js'
import type { ModeManifest } from './modes.js'
import { dropOrphanBlobs, dropTemporaryPacks } from './orphans.js'
import { ShadowGitAbandoned, type ShadowGit } from './shadow-git.js'

export { identityOf } from './index-identity.js'

/** A path a snapshot left out, and why: over the size limit, or a nested git repository (its own history). */
export interface SkippedPath {
  path: string
  reason: 'too-large' | 'nested-repository'
  bytes?: number
}

/** What one staging found: the tree the shadow index holds now, and what it left out. */
export interface Staged {
  tree: string
  skipped: SkippedPath[]
  /** How many files the tree holds, when this staging could tell without asking git (see `IndexMemo`). */
  files?: number
}

/**
 * What this engine last left in the shadow index: the tree it holds, how many files, and the index file's identity
 * then (inode, size, mtime: git replaces the index by renaming a new file over it, so any write by another process
 * changes it). While the identity is unchanged, the tree and count are reused instead of asked of git again.
 */
export interface IndexMemo {
  identity: string
  tree: string
  files: number | undefined
}

/** One record of `git status --porcelain=v1 -z --no-renames`. */
export interface StatusEntry {
  path: string
  /** The path as git wrote it (bytes: a name need not be UTF-8). */
  raw: Buffer
  /** The path is gone from the workspace. */
  deleted: boolean
  /** The workspace differs from the index here (untracked, modified, deleted, type changed): the index needs it. */
  unstaged: boolean
  /** Not in the index at all (`??`). */
  untracked: boolean
  /** The index differs from HEAD here (the first column is neither blank nor `?`). */
  staged: boolean
}

/**
 * At least this many paths to write into the index go through one `git add` that streams every blob into a single
 * pack (`core.bigFileThreshold=1`: bulk check-in) instead of one loose object file each: a workspace's first
 * snapshot, mostly. Measured on 20,000 files: about half the CPU time of loose objects. Below it, the changed paths
 * alone are written with `update-index` (no walk of the tree), and a handful of loose objects is cheaper than a pack.
 */
export const BULK_PATHS = 1_000

/**
 * Above this many paths the bulk check-in is slower, not faster: git 2.39 checks each new blob against every blob
 * already in the pack it is writing (a linear scan), so the cost grows with the square of the count (100,000 files:
 * 165 s against 55 s for loose objects, measured in one run). Larger stagings write loose objects, as before.
 */
export const BULK_MAX_PATHS = 20_000

export interface StagingOptions {
  git: ShadowGit
  /** The index `git` works on when it is not the repository's own: a private index (private-index.ts). */
  indexFile?: string
  gitDir: string
  cwd: string
  maxFileBytes: number
  modes: ModeManifest
}

/**
 * Brings the shadow index in line with the workspace and returns the tree it holds. One walk of the workspace: a
 * `git status` (the untracked cache skips unchanged directories); then only the paths it names as differing from the
 * index are written (`update-index`), or, for many paths at once, one `git add` of the whole tree. `head` is the
 * detached HEAD, which status compares the index with: when status reports nothing, the index holds exactly that
 * tree and no git runs after status.
 *
 * What holds (docs/checkpoints.md): the tree is what `git add --all` with the size limit and the nested-repository
 * exclusions would stage; every reported path's permission bits are noted in the mode manifest before the index
 * is written; a write that fails removes the blobs it wrote (orphans.ts) and leaves the index as it was.
 */
export async function stageWorkspace(options: StagingOptions, head: { tree: string; files: number } | undefined, memo: { current?: IndexMemo }): Promise<Staged> {
  return applyListing(options, await listWorkspace(options, memo), head, memo)
}

/** What one `git status` of the workspace found, classified, before anything is written (`applyListing` writes it). */
export interface Listing {
  status: StatusEntry[]
  skipped: SkippedPath[]
  /** The entries the index must take (the workspace differs from the index there). */
  writes: StatusEntry[]
  /** The index's count after the writes, from the count before: an untracked path adds one, a deleted one removes one. */
  delta: number | undefined
  /** What this engine left in the index, when the index is still as it left it. */
  known: IndexMemo | undefined
}

/** The walk of `stageWorkspace`: one `git status`, each reported path looked at (size, bits). Writes only the manifest's memory. */
export async function listWorkspace(options: StagingOptions, memo: { current?: IndexMemo }): Promise<Listing> {
  const { git, modes } = options
  const known = memo.current && memo.current.identity === identityOf(indexFile(options)) ? memo.current : undefined
  memo.current = undefined
  const statusArgs = ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all']
  // Status writes refreshed stat data back to the index; on a full disk that write fails, and status with it. The
  // listing itself needs no write, so it is asked again without the optional lock.
  const status = parseStatus(await git(statusArgs).catch(() => git(['--no-optional-locks', ...statusArgs])))
  const skipped: SkippedPath[] = []
  const writes: StatusEntry[] = []
  let delta: number | undefined = 0
  if (status.length) modes.refresh()
  for (const entry of status) {
    if (entry.path.endsWith('/')) {
      skipped.push({ path: entry.path.slice(0, -1), reason: 'nested-repository' })
      continue
    }
    const stat = entry.deleted ? undefined : lstatOf(join(options.cwd, entry.path))
    // A symlink's size is its target's name: it is never too large.
    if (stat && stat.size > options.maxFileBytes) {
      skipped.push({ path: entry.path, reason: 'too-large', bytes: stat.size })
      continue
    }
    modes.note(entry.path, stat)
    if (!entry.unstaged) continue
    writes.push(entry)
    if (delta === undefined) continue
    if (entry.untracked) delta = stat ? delta + 1 : undefined
    else if (entry.deleted) delta--
  }
  return { status, skipped, writes, delta, known }
}

/** The writes of `stageWorkspace`: what `listWorkspace` found goes into the index, and the tree it then holds. */
export async function applyListing(options: StagingOptions, listing: Listing, head: { tree: string; files: number } | undefined, memo: { current?: IndexMemo }): Promise<Staged> {
  const { git, modes } = options
  const { status, skipped, writes, delta, known } = listing
  const headTree = head?.tree
  const index = indexFile(options)
  const remember = (staged: Staged): Staged => {
    memo.current = { identity: identityOf(index), tree: staged.tree, files: staged.files }
    return staged
  }
  if (!status.length && head) return remember({ tree: head.tree, skipped, files: head.files })
  // Only staged differences from HEAD, and the index is as this engine left it: its tree is the one written then.
  if (!writes.length && known) return remember({ tree: known.tree, skipped, files: known.files })
  let files = known?.files !== undefined && delta !== undefined ? known.files + delta : undefined
  if (writes.length || headTree === undefined) {
    // Before the index is written: if that fails, the paths are reported again by the next status and noted again.
    modes.save()
    const started = Date.now()
    try {
      if (headTree === undefined || writes.length >= BULK_PATHS) {
        await addAll(git, skipped, status.length >= BULK_PATHS && status.length <= BULK_MAX_PATHS)
        files = undefined
      } else if (!(await updatePaths(git, writes, skipped))) files = undefined
    } catch (error) {
      // Abandoned (the session closed): the blobs written are unreachable and the next `git add` finds them instead
      // of writing them again (gc removes them after its grace); only git's temporary pack goes now.
      if (error instanceof ShadowGitAbandoned) dropTemporaryPacks(options.gitDir, started, options.indexFile)
      // A full disk: what the write put in the object store before failing must not keep the disk full.
      else await dropOrphanBlobs(git, options.gitDir, started, options.indexFile).catch(() => 0)
      throw error
    }
  }
  return remember({ tree: (await git(['write-tree'])).toString().trim(), skipped, files })
}

function indexFile(options: StagingOptions): string {
  return options.indexFile ?? join(options.gitDir, 'index')
}

/** `git add --all` of the whole workspace but the skipped paths; `bulk` streams the blobs into one pack. */
async function addAll(git: ShadowGit, skipped: readonly SkippedPath[], bulk: boolean): Promise<void> {
  const excludes = skipped.map((s) => `:(exclude,literal)${s.path}\0`).join('')
  const config = bulk ? ['-c', 'core.bigFileThreshold=1'] : []
  await git([...config, 'add', '--all', '--pathspec-from-file=-', '--pathspec-file-nul'], `:(top)\0${excludes}`)
}

/**
 * Writes just these paths into the index: added or modified ones hashed, deleted ones removed, a file that replaced
 * a directory (or the reverse) replacing the entries in its way. Status listed them, so none is ignored. Should git
 * refuse one (a path changed again between status and now in a way update-index will not take), the whole tree is
 * staged with `git add` instead, which takes anything status can report.
 */
async function updatePaths(git: ShadowGit, writes: readonly StatusEntry[], skipped: readonly SkippedPath[]): Promise<boolean> {
  const input = Buffer.concat(writes.flatMap((entry) => [entry.raw, Buffer.from([0])]))
  try {
    await git(['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], input)
    return true
  } catch {
    // The fallback below either stages the tree or throws its own error, which the caller reports.
    await addAll(git, skipped, false)
    return false
  }
}

/** Reads `git status --porcelain=v1 -z --no-renames`: `XY path` records, NUL-terminated. */
export function parseStatus(out: Buffer): StatusEntry[] {
  const entries: StatusEntry[] = []
  let start = 0
  while (start < out.length) {
    let end = out.indexOf(0, start)
    if (end < 0) end = out.length
    if (end - start >= 4) {
      const x = String.fromCharCode(out[start])
      const y = String.fromCharCode(out[start + 1])
      const raw = out.subarray(start + 3, end)
      entries.push({ path: raw.toString('utf8'), raw, deleted: y === 'D' || (x === 'D' && y === ' '), unstaged: y !== ' ', untracked: x === '?', staged: x !== ' ' && x !== '?' })
    }
    start = end + 1
  }
  return entries
}

/** A path's own status (a symlink is not followed), or undefined when it vanished meanwhile. */
export function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path)
  } catch {
    // Removed between git's listing and now: the index write records whatever is there when it runs.
    return undefined
  }
}
