import { createHash } from 'node:crypto'
import {
  closeSync,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs'
import type { Change, ChangeKind } from './engine.js'
import type { ContentChange } from './tree-diff.js'

/**
 * The file-by-file restore a rewind runs (docs/checkpoints.md, "Restore without half states"). What holds:
 * - Each file is written under a temporary name in its own directory (`.~rein-<token>-<n>`, `n` its place in the
 *   plan) with its recorded permission bits, then renamed over the path: a path holds its old content or its new
 *   one, never part of either. Symlinks are made the same way.
 * - Writes come first, removals after them, then the writes a removal had to clear the way for (a file where a
 *   directory was, a directory where a file or link was).
 * - Every path is checked again just before it is written or removed: it must still hold what the plan saw (the
 *   content the conflict check judged). A path that changed meanwhile, lies in a nested repository, is over the size
 *   limit or sits under a symlink or file is left as it is and reported, never written through.
 * - The first failure (a full disk, a read-only file system) stops the restore; `RestoreFailed` says what was and
 *   was not restored. Nothing is written outside the workspace.
 */

/** One path a restore changes: the plan's `ContentChange`, with its bytes as git gave them and the target's git mode. */
export interface PlannedChange extends ContentChange {
  /** The path as bytes (a name that is not UTF-8 is written back as it was, not as its replacement characters). */
  raw: Buffer
  /** The target's git mode (`100644`, `100755`, `120000`); absent where the target lacks the path. */
  wasMode?: string
}

/** Why a restore left a path as it is. */
export type LeftAloneReason = 'too-large' | 'nested-repository' | 'ignored' | 'changed' | 'blocked' | 'submodule'

export interface LeftAlone {
  path: string
  reason: LeftAloneReason
}

/** What a restore did: the paths it changed (as seen from the target) and the ones it left as they are. */
export interface RestoreResult {
  restored: Change[]
  leftAlone: LeftAlone[]
}

/** A restore that stopped part way: the reason, what it restored and what it did not. */
export class RestoreFailed extends Error {
  override readonly name = 'RestoreFailed'
  constructor(
    readonly reason: string,
    readonly restored: Change[],
    readonly notRestored: Change[],
    readonly leftAlone: LeftAlone[],
  ) {
    super(reason)
  }
}

const ZERO = /^0+$/

/**
 * Reads `git diff-tree -r -z --no-renames --raw <target> <now>` keeping each path's bytes: records
 * `:<mode> <mode> <oid> <oid> <status>`, NUL, path, NUL.
 */
export function parsePlannedDiff(out: Buffer): PlannedChange[] {
  const changes: PlannedChange[] = []
  let at = 0
  while (at < out.length) {
    const headEnd = out.indexOf(0, at)
    if (headEnd < 0) break
    const pathEnd = out.indexOf(0, headEnd + 1)
    if (pathEnd < 0) break
    const [oldMode, newMode, oldId, newId, status] = out.subarray(at, headEnd).toString('latin1').replace(/^:/, '').split(' ')
    const raw = Buffer.from(out.subarray(headEnd + 1, pathEnd))
    const kind: ChangeKind = status === 'A' ? 'added' : status === 'D' ? 'deleted' : 'modified'
    const was = ZERO.test(oldId) ? null : oldId
    const now = ZERO.test(newId) ? null : newId
    changes.push({
      path: raw.toString('utf8'),
      raw,
      kind,
      was,
      now,
      ...(now !== null && !ZERO.test(newMode) ? { nowMode: newMode } : {}),
      ...(was !== null && !ZERO.test(oldMode) ? { wasMode: oldMode } : {}),
    })
    at = pathEnd + 1
  }
  return changes
}

/** What a workspace path holds now, as a git object id (null: nothing there), or why it cannot be compared. */
type Current = { id: string | null } | { blocked: 'dir' | 'ancestor' | 'other' } | { skip: 'too-large' | 'nested-repository' }

/** Writes and removes workspace files for one restore. Synchronous: each step is done when the call returns. */
export class WorkspaceWriter {
  readonly restored: Change[] = []
  readonly leftAlone: LeftAlone[] = []
  /** `update-index --index-info` records for what was written or removed, so the shadow index matches the disk. */
  private readonly index: Buffer[] = []
  private readonly root: Buffer
  /** What each directory prefix (latin1 key) is: a real directory, absent, a nested repository, or in the way. */
  private readonly dirs = new Map<string, 'dir' | 'absent' | 'nested' | 'blocked'>()

  constructor(
    cwd: string,
    private readonly token: string,
    private readonly maxFileBytes: number,
    private readonly hash: 'sha1' | 'sha256',
  ) {
    this.root = Buffer.from(cwd.endsWith('/') ? cwd : `${cwd}/`)
  }

  /** The temporary name the `index`-th planned path is written under, beside it. */
  static tempName(raw: Buffer, index: number, token: string): Buffer {
    const slash = raw.lastIndexOf(0x2f)
    const dir = slash < 0 ? Buffer.alloc(0) : raw.subarray(0, slash + 1)
    return Buffer.concat([dir, Buffer.from(`.~rein-${token}-${index}`)])
  }

  /**
   * Writes `content` at the change's path with `bits` (a link when the target's mode is 120000). Returns `deferred`
   * when a directory, file or link is in the way and a later removal may clear it; `last` reports that as blocked.
   */
  write(change: PlannedChange, index: number, content: Buffer, bits: number, last = false): 'done' | 'deferred' | 'left' {
    const current = this.current(change.raw)
    if ('skip' in current) return this.leave(change, current.skip)
    if ('blocked' in current) {
      if (!last && current.blocked !== 'other') return 'deferred'
      return this.leave(change, 'blocked')
    }
    if (current.id !== change.now) return this.leave(change, 'changed')
    this.makeParents(change.raw)
    const target = this.full(change.raw)
    const temp = this.full(WorkspaceWriter.tempName(change.raw, index, this.token))
    try {
      if (change.wasMode === '120000') {
        symlinkSync(content, temp)
      } else {
        const fd = openSync(temp, 'wx', 0o600)
        try {
          let done = 0
          while (done < content.length) done += writeSync(fd, content, done, content.length - done)
          fchmodSync(fd, bits)
        } finally {
          closeSync(fd)
        }
      }
      renameSync(temp, target)
    } catch (error) {
      removeQuietly(temp)
      throw error
    }
    this.restored.push({ path: change.path, kind: change.kind })
    this.index.push(Buffer.concat([Buffer.from(`${change.wasMode} ${change.was}\t`), change.raw, Buffer.from([0])]))
    return 'done'
  }

  /** Removes the change's path (the target lacks it), then the directories that leaves empty. */
  remove(change: PlannedChange): 'done' | 'left' {
    const current = this.current(change.raw)
    if ('skip' in current) return this.leave(change, current.skip)
    if ('blocked' in current) return this.leave(change, 'blocked')
    // Gone already (removed meanwhile): the path is as the target has it.
    if (current.id !== change.now && current.id !== null) return this.leave(change, 'changed')
    if (current.id !== null) unlinkSync(this.full(change.raw))
    this.dirs.set(change.raw.toString('latin1'), 'absent')
    this.removeEmptyParents(change.raw)
    this.restored.push({ path: change.path, kind: change.kind })
    this.index.push(Buffer.concat([Buffer.from(`0 ${'0'.repeat(change.now?.length ?? 40)}\t`), change.raw, Buffer.from([0])]))
    return 'done'
  }

  /** Marks a path the plan already decided to leave (a kept conflict is not this: it is simply not handed over). */
  leave(change: Pick<Change, 'path' | 'kind'>, reason: LeftAloneReason): 'left' {
    this.leftAlone.push({ path: change.path, reason })
    return 'left'
  }

  /** Whether every directory above the path is a real one or missing (none is a link or a file in the way). */
  reachable(raw: Buffer): boolean {
    const ancestors = this.ancestors(raw)
    return ancestors === 'dir' || ancestors === 'absent'
  }

  /** Why a plan leaves this path alone whatever the snapshot says (over the size limit, in a nested repository). */
  leftAloneReason(raw: Buffer): 'too-large' | 'nested-repository' | undefined {
    const ancestors = this.ancestors(raw)
    if (ancestors === 'nested') return 'nested-repository'
    if (ancestors !== 'dir') return undefined
    try {
      const stat = lstatSync(this.full(raw))
      return stat.isFile() && stat.size > this.maxFileBytes ? 'too-large' : undefined
    } catch {
      // Absent: nothing there to protect.
      return undefined
    }
  }

  indexInfo(): Buffer {
    return Buffer.concat(this.index)
  }

  private full(raw: Buffer): Buffer {
    return Buffer.concat([this.root, raw])
  }

  /** The path's content id now, after checking every directory above it is a real one outside nested repositories. */
  private current(raw: Buffer): Current {
    const ancestors = this.ancestors(raw)
    if (ancestors === 'nested') return { skip: 'nested-repository' }
    if (ancestors === 'blocked') return { blocked: 'ancestor' }
    if (ancestors === 'absent') return { id: null }
    let stat: Stats
    const full = this.full(raw)
    try {
      stat = lstatSync(full)
    } catch (error) {
      if (isMissing(error)) return { id: null }
      throw error
    }
    if (stat.isSymbolicLink()) return { id: this.objectId(readlinkSync(full, { encoding: 'buffer' })) }
    if (stat.isDirectory()) return { blocked: 'dir' }
    if (!stat.isFile()) return { blocked: 'other' }
    if (stat.size > this.maxFileBytes) return { skip: 'too-large' }
    return { id: this.objectId(readFileSync(full)) }
  }

  /** What the directories above `raw` are: all real (`dir`), one missing (`absent`), one in the way, or a nested repository. */
  private ancestors(raw: Buffer): 'dir' | 'absent' | 'nested' | 'blocked' {
    for (let at = raw.indexOf(0x2f); at >= 0; at = raw.indexOf(0x2f, at + 1)) {
      const prefix = raw.subarray(0, at)
      const key = prefix.toString('latin1')
      let known = this.dirs.get(key)
      if (!known) {
        known = this.inspect(prefix)
        this.dirs.set(key, known)
      }
      if (known !== 'dir') return known
    }
    return 'dir'
  }

  private inspect(prefix: Buffer): 'dir' | 'absent' | 'nested' | 'blocked' {
    let stat: Stats
    try {
      stat = lstatSync(this.full(prefix))
    } catch (error) {
      if (isMissing(error)) return 'absent'
      throw error
    }
    if (!stat.isDirectory()) return 'blocked'
    try {
      lstatSync(Buffer.concat([this.full(prefix), Buffer.from('/.git')]))
      return 'nested'
    } catch {
      // No `.git` in it: an ordinary directory of the workspace.
      return 'dir'
    }
  }

  private makeParents(raw: Buffer): void {
    for (let at = raw.indexOf(0x2f); at >= 0; at = raw.indexOf(0x2f, at + 1)) {
      const prefix = raw.subarray(0, at)
      const key = prefix.toString('latin1')
      if (this.dirs.get(key) === 'dir') continue
      try {
        mkdirSync(this.full(prefix))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      this.dirs.set(key, 'dir')
    }
  }

  private removeEmptyParents(raw: Buffer): void {
    for (let at = raw.lastIndexOf(0x2f); at > 0; at = raw.lastIndexOf(0x2f, at - 1)) {
      const prefix = raw.subarray(0, at)
      try {
        rmdirSync(this.full(prefix))
      } catch {
        // Not empty (or not ours to remove): the directories above it are not empty either.
        return
      }
      this.dirs.set(prefix.toString('latin1'), 'absent')
    }
  }

  private objectId(content: Buffer): string {
    return createHash(this.hash).update(`blob ${content.length}\0`).update(content).digest('hex')
  }
}

/** Removes what an interrupted restore may have left under its temporary names (see `WorkspaceWriter.tempName`). */
export function removeTemporaries(cwd: string, paths: readonly string[], token: string): void {
  if (!/^[0-9a-f]{6,40}$/.test(token)) return
  const root = Buffer.from(cwd.endsWith('/') ? cwd : `${cwd}/`)
  paths.forEach((path, index) => removeQuietly(Buffer.concat([root, WorkspaceWriter.tempName(Buffer.from(path), index, token)])))
}

function removeQuietly(path: Buffer): void {
  try {
    unlinkSync(path)
  } catch {
    // Not there: nothing was left under that name.
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}
