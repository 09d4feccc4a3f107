import { randomBytes } from 'node:crypto'
import { commitModes, restoreBits, type CommitModes } from './modes.js'
import { streamObjects } from './object-stream.js'
import { parsePlannedDiff, RestoreFailed, WorkspaceWriter, type LeftAlone, type PlannedChange, type RestoreResult } from './restore.js'
import { ShadowGitError, type ShadowGit } from './shadow-git.js'

/** What a restore of `target` would change, and what it leaves as it is whatever the snapshot holds. */
export interface RestorePlan {
  target: string
  /** The paths that differ between the target and the workspace, none of them protected, ignored or skipped. */
  changes: PlannedChange[]
  /** Paths that differ but are left alone: over the size limit, ignored, in a nested repository. */
  leftAlone: LeftAlone[]
}

export interface RestoreOptions {
  git: ShadowGit
  cwd: string
  maxFileBytes: number
  isProtected: (path: string) => boolean
}

/**
 * What restoring `commit` over the workspace (staged as `nowTree`) would change, minus the paths a restore leaves
 * alone whatever the snapshot says: protected files, ignored paths, files over the size limit, paths in nested
 * repositories and submodules.
 */
export async function planRestore(options: RestoreOptions, commit: string, nowTree: string): Promise<RestorePlan> {
  const leftAlone: LeftAlone[] = []
  const changes: PlannedChange[] = []
  const diff = await options.git(['diff-tree', '-r', '-z', '--no-renames', '--raw', commit, nowTree])
  const candidates = parsePlannedDiff(diff).filter((c) => !options.isProtected(c.path))
  const judge = new WorkspaceWriter(options.cwd, '', options.maxFileBytes, hashOf(commit))
  // A path under a link or a file cannot be asked about (git refuses); the restore clears the way or leaves it.
  const ignored = await ignoredPaths(options.git, candidates.filter((c) => judge.reachable(c.raw)))
  for (const change of candidates) {
    if (change.wasMode === '160000' || change.nowMode === '160000') leftAlone.push({ path: change.path, reason: 'submodule' })
    else if (ignored.has(change.raw.toString('latin1'))) leftAlone.push({ path: change.path, reason: 'ignored' })
    else {
      const reason = judge.leftAloneReason(change.raw)
      if (reason) leftAlone.push({ path: change.path, reason })
      else changes.push(change)
    }
  }
  return { target: commit, changes, leftAlone }
}

/** Which of the paths the workspace's ignore rules (and Rein's) name, whatever the shadow index tracks. */
async function ignoredPaths(git: ShadowGit, changes: readonly PlannedChange[]): Promise<Set<string>> {
  if (!changes.length) return new Set()
  // check-ignore reads pathspecs and knows no `:(literal)`: a leading `./` keeps a name like `:(exclude)x` a name.
  const input = Buffer.concat(changes.flatMap((c) => [Buffer.from('./'), c.raw, Buffer.from([0])]))
  const out = await git(['check-ignore', '--no-index', '-z', '--stdin'], input).catch((error: unknown) => {
    // Exit 1: none of them is ignored.
    if (error instanceof ShadowGitError && error.exitCode === 1) return Buffer.alloc(0)
    throw error
  })
  return new Set(
    out
      .toString('latin1')
      .split('\0')
      .filter(Boolean)
      .map((path) => (path.startsWith('./') ? path.slice(2) : path)),
  )
}

/**
 * Writes what `plan` found, except the paths in `keep`: each file under a temporary name renamed into place, then
 * the removals, then what had to wait for a removal. The shadow index follows what is on disk afterwards, restored
 * or not. Throws `RestoreFailed` (what was and was not restored) when it stopped part way.
 */
export async function applyRestore(options: RestoreOptions, plan: RestorePlan, keep: readonly string[], token: string): Promise<RestoreResult> {
  const { git } = options
  const kept = new Set(keep)
  const changes = plan.changes.filter((c) => !kept.has(c.path))
  const writer = new WorkspaceWriter(options.cwd, token, options.maxFileBytes, hashOf(plan.target))
  for (const left of plan.leftAlone) writer.leave({ path: left.path, kind: 'modified' }, left.reason)
  const writes = changes.map((change, index) => ({ change, index })).filter((w) => w.change.was !== null)
  const removals = changes.filter((c) => c.was === null)
  const deferred: { change: PlannedChange; index: number; content: Buffer }[] = []
  let modes: CommitModes | undefined
  const bits = (change: PlannedChange) => restoreBits(modes, change.path, change.wasMode ?? '100644')
  let failure: unknown
  try {
    const ids = writes.length ? [plan.target, ...writes.map((w) => w.change.was as string)] : []
    if (ids.length) await streamObjects(git, ids, (i, content) => {
      if (i === 0) {
        modes = commitModes(content.toString('utf8'))
        return
      }
      const { change, index } = writes[i - 1]
      if (writer.write(change, index, content, bits(change)) === 'deferred') deferred.push({ change, index, content })
    })
    for (const change of removals) writer.remove(change)
    for (const { change, index, content } of deferred) writer.write(change, index, content, bits(change), true)
  } catch (error) {
    failure = error
  }
  // The index follows what is on disk now, restored or not; a failure here leaves it to the next status to notice.
  const info = writer.indexInfo()
  if (info.length) await git(['update-index', '-z', '--index-info'], info).catch(() => undefined)
  if (failure !== undefined) {
    const done = new Set(writer.restored.map((c) => c.path))
    const left = new Set(writer.leftAlone.map((l) => l.path))
    throw new RestoreFailed(
      restoreFailure(failure),
      writer.restored,
      changes.filter((c) => !done.has(c.path) && !left.has(c.path)).map(({ path, kind }) => ({ path, kind })),
      writer.leftAlone,
    )
  }
  return { restored: writer.restored, leftAlone: writer.leftAlone }
}

/** Why a restore stopped, as a clause a person reads: the disk, the file system, or the error itself. */
function restoreFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOSPC' || code === 'EDQUOT') return "the workspace's disk is full"
  if (code === 'EROFS') return "the workspace's file system is read-only"
  if (code === 'EACCES' || code === 'EPERM') return `permission denied${(error as NodeJS.ErrnoException).path ? ` for ${(error as NodeJS.ErrnoException).path}` : ''}`
  return error instanceof Error ? error.message : String(error)
}

/** The hash git names objects with in a repository whose ids look like `id`. */
function hashOf(id: string): 'sha1' | 'sha256' {
  return id.length === 64 ? 'sha256' : 'sha1'
}

/** A fresh name part for one restore's temporary files. */
export function restoreToken(): string {
  return randomBytes(6).toString('hex')
}
