import { randomBytes } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, type Stats } from 'node:fs'
import { join, resolve } from 'node:path'
import { cwdKey } from '../store/home.js'
import { commitModes, ModeManifest, restoreBits, type CommitModes } from './modes.js'
import { healStaleLocks, staleLockNotice } from './locks.js'
import { streamObjects } from './object-stream.js'
import { dropOrphanBlobs } from './orphans.js'
import { homeInside, isProtectedPath, protectedPatterns } from './protected.js'
import { detachedHead, LEGACY_REF, looseRef, sessionRef } from './refs.js'
import { parsePlannedDiff, removeTemporaries, RestoreFailed, WorkspaceWriter, type LeftAlone, type PlannedChange, type RestoreResult } from './restore.js'
import { shadowGit, ShadowGitError, type ShadowGit } from './shadow-git.js'
import { parseRawDiff, type ContentChange } from './tree-diff.js'

/** Files larger than this (bytes) are left out of snapshots by default, and each snapshot names them. */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024

/** Paths no snapshot holds, whatever `.gitignore` says (gitignore syntax, in the shadow repository's info/exclude). */
export const REIN_IGNORE: readonly string[] = ['.git', 'node_modules/']

/** The file in a shadow repository that names the workspace it covers (for listings and `prune --all-workspaces`). */
export const WORKSPACE_FILE = 'rein-workspace'

export interface CheckpointOptions {
  /** `$REIN_HOME`; the repository lives at `checkpoints/<cwdKey(cwd)>` under it. */
  home: string
  /** The workspace snapshots cover. */
  cwd: string
  /**
   * The session whose snapshots these are: they chain on `refs/rein/sessions/<id>` (src/checkpoints/refs.ts). Without
   * one (an engine that only restores or diffs), snapshots chain on the legacy workspace-wide ref.
   */
  sessionId?: string
  maxFileBytes?: number
  env?: NodeJS.ProcessEnv
  secretEnv?: readonly string[]
  /** How long to wait for a git lock a live process holds before failing (ms; src/checkpoints/locks.ts). */
  lockWaitMs?: number
}

/** What a restore of `target` would change, and what it leaves as it is whatever the snapshot holds. */
export interface RestorePlan {
  target: string
  /** The paths that differ between the target and the workspace, none of them protected, ignored or skipped. */
  changes: PlannedChange[]
  /** Paths that differ but are left alone: over the size limit, ignored, in a nested repository. */
  leftAlone: LeftAlone[]
}

/** A path a snapshot left out, and why: over the size limit, or a nested git repository (its own history). */
export interface SkippedPath {
  path: string
  reason: 'too-large' | 'nested-repository'
  bytes?: number
}

/** One snapshot: the commit in the shadow repository, how many files it holds, and what it left out. */
export interface Snapshot {
  commit: string
  files: number
  skipped: SkippedPath[]
}

export type ChangeKind = 'added' | 'modified' | 'deleted'

/** A path that differs between two snapshots, as seen from the older one. */
export interface Change {
  path: string
  kind: ChangeKind
}

interface Head {
  commit: string
  tree: string
  files: number
}

/**
 * Snapshots of one workspace in a git repository Rein owns (`$REIN_HOME/checkpoints/<workspace key>`).
 *
 * What holds:
 * - Git runs with `--git-dir` set to the shadow repository and its own index; the workspace's `.git` (index, refs,
 *   hooks, config) is never read or written, and the workspace need not be a repository at all.
 * - A snapshot holds every file git would not ignore (the workspace's `.gitignore` files plus `REIN_IGNORE`), byte
 *   for byte: `info/attributes` turns off every content conversion, so what is restored is what was there.
 * - Files over `maxFileBytes` and nested repositories are left out and named in `skipped`; a restore neither removes
 *   nor rewrites them, nor ignored paths, nor Rein's and Claude Code's settings and trust files (protected.ts), which
 *   no snapshot holds either.
 * - Each snapshot records its files' full permission bits (modes.ts), and a restore puts them back.
 * - A restore writes file by file, each under a temporary name renamed into place (restore.ts), checking each path
 *   again just before it is written; the shadow index ends as the workspace is.
 * - A git lock left by a killed process is removed with a notice (`takeNotices`); one a live git holds is waited for
 *   briefly (locks.ts). A `git add` that fails removes the blobs it wrote (orphans.ts).
 * - Operations on one engine run one at a time, in call order.
 */
export class Checkpoints {
  readonly gitDir: string
  readonly cwd: string
  private readonly maxFileBytes: number
  private readonly git: ShadowGit
  /** `$REIN_HOME` relative to the workspace when it lies inside it: never snapshotted or restored. */
  private readonly homeInWorkspace: string | undefined
  private readonly protectedPatterns: string[]
  private readonly modes: ModeManifest
  private readonly notices: string[] = []
  /** The session's ref, or the error that its id cannot name one (reported by the first snapshot). */
  private readonly ref: string | Error
  private readonly sessionId: string | undefined
  /** What the detached HEAD (the workspace's latest snapshot, any session's) named when last read. */
  private head: Head | null | undefined
  /** This session's latest snapshot when last read; undefined until the first snapshot looks. */
  private tip: Head | null | undefined
  private queue: Promise<unknown> = Promise.resolve()

  constructor(options: CheckpointOptions) {
    this.cwd = resolve(options.cwd)
    this.gitDir = join(resolve(options.home), 'checkpoints', cwdKey(this.cwd))
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES
    this.git = shadowGit({
      gitDir: this.gitDir,
      workTree: this.cwd,
      env: options.env,
      secretEnv: options.secretEnv,
      lockWaitMs: options.lockWaitMs,
      onNotice: (message) => this.notices.push(message),
    })
    this.ref = refFor(options.sessionId)
    this.sessionId = options.sessionId
    this.homeInWorkspace = homeInside(options.home, this.cwd)
    this.protectedPatterns = protectedPatterns(options.home, this.cwd)
    this.modes = new ModeManifest(this.gitDir)
  }

  /** What happened on the way that the user should hear of (a stale lock removed), once each; then forgotten. */
  takeNotices(): string[] {
    return this.notices.splice(0)
  }

  private isProtected(path: string): boolean {
    return isProtectedPath(path, this.homeInWorkspace)
  }

  /**
   * Records the workspace as it stands, as the newest snapshot of this engine's session. When nothing changed since
   * the session's last snapshot, returns that one again and writes nothing. The commit returned is always reachable
   * from the session's own ref, so pruning other sessions never takes it away.
   */
  snapshot(message = 'checkpoint', options: { modesOf?: readonly string[] } = {}): Promise<Snapshot> {
    return this.serial(async () => {
      if (this.ref instanceof Error) throw this.ref
      const staged = await this.stage()
      // A rewind's `before`: the bits of every path it is about to write are read now, a chmod alone included.
      if (options.modesOf?.length) {
        this.modes.refresh()
        for (const path of options.modesOf) this.modes.note(path, lstatOf(join(this.cwd, path)))
        this.modes.save()
      }
      const tip = await this.sessionTip(this.ref)
      const unchanged = tip && staged.tree === tip.tree
      if (unchanged && !options.modesOf?.length) return { commit: tip.commit, files: tip.files, skipped: staged.skipped }
      const block = this.modes.block()
      // A `before` with the same files but other bits than the tip records is a snapshot of its own.
      if (unchanged && (await this.modesBlock(tip.commit)) === block) return { commit: tip.commit, files: tip.files, skipped: staged.skipped }
      const commit = await this.commitTree(staged.tree, tip?.commit, `${message}\n\n${this.sessionId ? `Session: ${this.sessionId}\n` : ''}${block}\n`)
      // One transaction: the session's ref and HEAD move together, both to the new snapshot.
      // No reflog: it would keep every snapshot alive past retention (git writes one when a work tree is given).
      await this.git(['-c', 'core.logAllRefUpdates=false', 'update-ref', '--no-deref', '--stdin'], `update ${this.ref} ${commit}\nupdate HEAD ${commit}\n`)
      const files = this.head && staged.tree === this.head.tree ? this.head.files : countEntries(await this.git(['ls-files', '-z']))
      this.head = { commit, tree: staged.tree, files }
      this.tip = this.head
      return { commit, files, skipped: staged.skipped }
    })
  }

  /** A commit of `tree` after `parent`; parentless when the parent was pruned meanwhile (by another process). */
  private async commitTree(tree: string, parent: string | undefined, message: string): Promise<string> {
    // The message (with the modes block, which may be long) goes on stdin: an argument has a length limit.
    const run = (args: string[]) => this.git(['commit-tree', tree, ...args], message).then((out) => out.toString().trim())
    if (!parent) return run([])
    return run(['-p', parent]).catch(async (error: unknown) => {
      if (await this.exists(parent)) throw error
      return run([])
    })
  }

  private async exists(commit: string): Promise<boolean> {
    return this.git(['cat-file', '-e', `${commit}^{commit}`]).then(
      () => true,
      () => false,
    )
  }

  /**
   * The session's latest snapshot. Read from the loose ref file when it still names the cached one (no git process
   * on the common path); otherwise asked of git, which also covers a packed ref and a ref pruned meanwhile.
   */
  private async sessionTip(ref: string): Promise<Head | null> {
    if (this.tip && looseRef(this.gitDir, ref) === this.tip.commit) return this.tip
    const commit = await this.resolve(ref)
    this.tip = commit ? (commit === this.head?.commit ? this.head : await this.describe(commit)) : null
    return this.tip
  }

  /** The paths that differ between a snapshot and the workspace as it stands now (nothing is committed). */
  changesSince(commit: string): Promise<Change[]> {
    return this.serial(async () => this.diffTrees(commit, (await this.stage()).tree))
  }

  /** The paths that differ between two snapshots (commits or trees). */
  diff(from: string, to: string): Promise<Change[]> {
    return this.serial(() => this.diffTrees(from, to))
  }

  /**
   * Puts the workspace back as it was at `commit`: changed files get their old content and permission bits, files
   * created since are removed, deleted files (and their directories) come back. Skipped, ignored and protected files
   * are left alone. Returns what it changed, as seen from `commit`; throws `RestoreFailed` when it stopped part way.
   */
  restore(commit: string): Promise<Change[]> {
    return this.restoreExcept(commit, [])
  }

  // Rewind (src/checkpoints/rewind.ts): content ids, existence checks and a restore that leaves some paths alone.

  /**
   * The paths that differ between a snapshot and the workspace as it stands, with the content id each has in the
   * snapshot (`was`) and now (`now`). Only the shadow index is written.
   */
  compare(commit: string): Promise<ContentChange[]> {
    return this.serial(async () => {
      const changes = parseRawDiff(await this.git(['diff-tree', '-r', '-z', '--no-renames', '--raw', commit, (await this.stage()).tree]))
      // An older snapshot may still hold a settings file; it is not the agent's change, nor anything to put back.
      return changes.filter((c) => !this.isProtected(c.path))
    })
  }

  /**
   * What restoring `commit` would change (`compare`, with each path's bytes and modes), minus the paths a restore
   * leaves alone whatever the snapshot says: protected files, ignored paths, files over the size limit and paths
   * in nested repositories (`leftAlone`).
   */
  plan(commit: string): Promise<RestorePlan> {
    return this.serial(() => this.planNow(commit))
  }

  /**
   * Restores what `plan` found, except the paths in `keep`, which stay exactly as they are. Each file is written
   * under a temporary name (`.~rein-<token>-<n>`) and renamed into place; removals follow the writes. Throws
   * `RestoreFailed` (what was and was not restored) when it stops part way; the shadow index is brought in line with
   * the workspace either way.
   */
  restorePlanned(plan: RestorePlan, keep: readonly string[] = [], token = restoreToken()): Promise<RestoreResult> {
    return this.serial(() => this.apply(plan, keep, token))
  }

  /** Removes the temporary files an interrupted restore (its planned paths, in order, and token) may have left. */
  removeTemporaries(paths: readonly string[], token: string): Promise<void> {
    return this.serial(async () => removeTemporaries(this.cwd, paths, token))
  }

  /** Whether `commit` is a snapshot the shadow repository still holds (retention may have pruned it). */
  hasSnapshot(commit: string): Promise<boolean> {
    return this.serial(async () => {
      await this.ensureRepository()
      return this.git(['cat-file', '-e', `${commit}^{commit}`]).then(
        () => true,
        // cat-file -e exits non-zero exactly when the object is missing or is not a commit.
        () => false,
      )
    })
  }

  /**
   * `restore(commit)`, except that every path in `keep` stays exactly as it is in the workspace (content, absence,
   * mode). Returns what it changed, as seen from `commit`; throws `RestoreFailed` when it stopped part way.
   */
  restoreExcept(commit: string, keep: readonly string[]): Promise<Change[]> {
    return this.serial(async () => (await this.apply(await this.planNow(commit), keep, restoreToken())).restored)
  }

  private async planNow(commit: string): Promise<RestorePlan> {
    const now = await this.stage()
    const leftAlone: LeftAlone[] = []
    const changes: PlannedChange[] = []
    const candidates = parsePlannedDiff(await this.git(['diff-tree', '-r', '-z', '--no-renames', '--raw', commit, now.tree])).filter(
      (c) => !this.isProtected(c.path),
    )
    const judge = new WorkspaceWriter(this.cwd, '', this.maxFileBytes, hashOf(commit))
    // A path under a link or a file cannot be asked about (git refuses); the restore clears the way or leaves it.
    const ignored = await this.ignored(candidates.filter((c) => judge.reachable(c.raw)))
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
  private async ignored(changes: readonly PlannedChange[]): Promise<Set<string>> {
    if (!changes.length) return new Set()
    // check-ignore reads pathspecs and knows no `:(literal)`: a leading `./` keeps a name like `:(exclude)x` a name.
    const input = Buffer.concat(changes.flatMap((c) => [Buffer.from('./'), c.raw, Buffer.from([0])]))
    const out = await this.git(['check-ignore', '--no-index', '-z', '--stdin'], input).catch((error: unknown) => {
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

  private async apply(plan: RestorePlan, keep: readonly string[], token: string): Promise<RestoreResult> {
    const kept = new Set(keep)
    const changes = plan.changes.filter((c) => !kept.has(c.path))
    const writer = new WorkspaceWriter(this.cwd, token, this.maxFileBytes, hashOf(plan.target))
    for (const left of plan.leftAlone) writer.leave({ path: left.path, kind: 'modified' }, left.reason)
    const writes = changes.map((change, index) => ({ change, index })).filter((w) => w.change.was !== null)
    const removals = changes.filter((c) => c.was === null)
    const deferred: { change: PlannedChange; index: number; content: Buffer }[] = []
    let modes: CommitModes | undefined
    const bits = (change: PlannedChange) => restoreBits(modes, change.path, change.wasMode ?? '100644')
    let failure: unknown
    try {
      const ids = writes.length ? [plan.target, ...writes.map((w) => w.change.was as string)] : []
      if (ids.length) await streamObjects(this.git, ids, (i, content) => {
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
    if (info.length) await this.git(['update-index', '-z', '--index-info'], info).catch(() => undefined)
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

  /** The modes block of a snapshot commit's message, for comparing with the manifest now. */
  private async modesBlock(commit: string): Promise<string> {
    const message = (await this.git(['cat-file', 'commit', commit])).toString('utf8')
    const at = message.indexOf('\nModes: ')
    return at < 0 ? '' : message.slice(at + 1).trimEnd()
  }

  /** Brings the index in line with the workspace and returns the tree it holds. */
  private async stage(): Promise<{ tree: string; skipped: SkippedPath[] }> {
    await this.ensureRepository()
    await this.readHead()
    const statusArgs = ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all']
    // Status writes refreshed stat data back to the index; on a full disk that write fails, and status with it. The
    // listing itself needs no write, so it is asked again without the optional lock.
    const status = parseStatus(await this.git(statusArgs).catch(() => this.git(['--no-optional-locks', ...statusArgs])))
    const skipped: SkippedPath[] = []
    let changed = false
    if (status.length) this.modes.refresh()
    for (const entry of status) {
      if (entry.path.endsWith('/')) {
        skipped.push({ path: entry.path.slice(0, -1), reason: 'nested-repository' })
        continue
      }
      const stat = entry.deleted ? undefined : lstatOf(join(this.cwd, entry.path))
      // A symlink's size is its target's name: it is never too large.
      if (stat && stat.size > this.maxFileBytes) {
        skipped.push({ path: entry.path, reason: 'too-large', bytes: stat.size })
        continue
      }
      this.modes.note(entry.path, stat)
      changed = true
    }
    if (changed || !this.head) {
      // Before `git add`: if the add fails, the paths are reported again by the next status and noted again.
      this.modes.save()
      const excludes = skipped.map((s) => `:(exclude,literal)${s.path}\0`).join('')
      const started = Date.now()
      try {
        await this.git(['add', '--all', '--pathspec-from-file=-', '--pathspec-file-nul'], `:(top)\0${excludes}`)
      } catch (error) {
        // A full disk: what the add wrote before failing must not keep the disk full.
        await dropOrphanBlobs(this.git, this.gitDir, started).catch(() => 0)
        throw error
      }
      return { tree: (await this.git(['write-tree'])).toString().trim(), skipped }
    }
    return { tree: this.head.tree, skipped }
  }

  private async diffTrees(from: string, to: string): Promise<Change[]> {
    const out = await this.git(['diff-tree', '-r', '-z', '--no-renames', '--name-status', from, to])
    const parts = out.toString('utf8').split('\0')
    const changes: Change[] = []
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const letter = parts[i]
      if (this.isProtected(parts[i + 1])) continue
      changes.push({ path: parts[i + 1], kind: letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified' })
    }
    return changes
  }

  /**
   * Creates the shadow repository on first use, and brings an older one to the current layout: a `HEAD` still
   * pointing at the legacy chain is detached at its tip (the chain itself stays, restorable until pruned).
   */
  private async ensureRepository(): Promise<void> {
    if (this.head !== undefined) return
    // Locks a killed git left, also on refs no command of this engine may write soon (src/checkpoints/locks.ts).
    for (const lock of await healStaleLocks(this.gitDir)) this.notices.push(staleLockNotice(lock))
    if (!existsSync(join(this.gitDir, 'HEAD'))) {
      mkdirSync(this.gitDir, { recursive: true })
      // No template: its sample hooks (about 60 KB) never run here (hooks are off) and only take room in $REIN_HOME.
      await this.git(['init', '--quiet', '--bare', '--template='], undefined, true)
      // The untracked cache lets `status` skip directories whose mtime did not change: most of a big workspace.
      await this.git(['config', 'core.untrackedCache', 'true'], undefined, true)
      // Retention's gc must leave session refs loose: a snapshot checks its ref by reading the file (refs.ts).
      await this.git(['config', 'gc.packRefs', 'false'], undefined, true)
    }
    mkdirSync(join(this.gitDir, 'info'), { recursive: true })
    writeFileSync(join(this.gitDir, 'info', 'exclude'), [...REIN_IGNORE, ...this.protectedPatterns].join('\n') + '\n')
    // Highest-precedence attributes: no filter, end-of-line or encoding conversion, so snapshots are byte-exact.
    writeFileSync(join(this.gitDir, 'info', 'attributes'), '* -text -eol -filter -ident -working-tree-encoding\n')
    writeFileSync(join(this.gitDir, WORKSPACE_FILE), this.cwd + '\n')
    if (!detachedHead(this.gitDir)) {
      const legacy = await this.resolve(LEGACY_REF)
      if (legacy) await this.git(['-c', 'core.logAllRefUpdates=false', 'update-ref', '--no-deref', 'HEAD', legacy])
    }
    // Reflogs the older layout wrote would keep every snapshot reachable, so nothing could ever be pruned.
    rmSync(join(this.gitDir, 'logs'), { recursive: true, force: true })
    await this.untrackProtected()
    if (!this.modes.exists()) await this.recordAllModes()
    // Private indexes of restores before this one (killed ones leave theirs): nothing reads them any more.
    for (const name of readdirSync(this.gitDir)) if (name.startsWith('rewind-index-')) rmSync(join(this.gitDir, name), { force: true })
    this.head = null
  }

  /**
   * Drops from the shadow index every protected path an older Rein staged (once per list of patterns: the list is
   * kept in `rein-protected`), so later snapshots no longer hold them; the ignore rules keep them out from then on.
   */
  private async untrackProtected(): Promise<void> {
    const marker = join(this.gitDir, 'rein-protected')
    const wanted = this.protectedPatterns.join('\n') + '\n'
    if (readText(marker) === wanted) return
    if (existsSync(join(this.gitDir, 'index'))) {
      const specs = this.protectedPatterns.map((p) => (p.startsWith('/') ? `:(literal)${p.slice(1, -1)}` : `:(glob)${p}`))
      const tracked = await this.git(['ls-files', '-z', '--', ...specs])
      if (tracked.length) await this.git(['update-index', '-z', '--force-remove', '--stdin'], tracked)
    }
    writeFileSync(marker, wanted)
  }

  /** Starts the modes manifest of a repository that has none: every file the index holds is looked at once. */
  private async recordAllModes(): Promise<void> {
    this.modes.create()
    if (existsSync(join(this.gitDir, 'index'))) {
      for (const path of (await this.git(['ls-files', '-z'])).toString('utf8').split('\0')) {
        if (path) this.modes.note(path, lstatOf(join(this.cwd, path)))
      }
    }
    this.modes.save()
  }

  /** Follows the detached HEAD, which another process's snapshot may have moved since this engine last looked. */
  private async readHead(): Promise<void> {
    const commit = detachedHead(this.gitDir)
    if (commit === (this.head?.commit ?? null)) return
    this.head = commit ? await this.describe(commit) : null
  }

  /** The commit a ref names, or '' when it names none. */
  private resolve(ref: string): Promise<string> {
    return this.git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).then(
      (out) => out.toString().trim(),
      // No such ref (never written, or pruned): there is no snapshot to build on.
      () => '',
    )
  }

  private async describe(commit: string): Promise<Head> {
    const tree = (await this.git(['rev-parse', `${commit}^{tree}`])).toString().trim()
    const files = countEntries(await this.git(['ls-tree', '-r', '-z', '--name-only', tree]))
    return { commit, tree, files }
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work)
    this.queue = next.catch(() => undefined)
    return next
  }
}

interface StatusEntry {
  path: string
  /** The path is gone from the workspace. */
  deleted: boolean
}

/** Reads `git status --porcelain=v1 -z --no-renames`: `XY path` records, NUL-terminated. */
export function parseStatus(out: Buffer): StatusEntry[] {
  const entries: StatusEntry[] = []
  for (const record of out.toString('utf8').split('\0')) {
    if (record.length < 4) continue
    entries.push({ path: record.slice(3), deleted: record[1] === 'D' || (record[0] === 'D' && record[1] === ' ') })
  }
  return entries
}

/** A session's ref, or the error that its id cannot name one; no session means the legacy workspace-wide chain. */
function refFor(sessionId: string | undefined): string | Error {
  if (sessionId === undefined) return LEGACY_REF
  try {
    return sessionRef(sessionId)
  } catch (error) {
    return error as Error
  }
}

function countEntries(out: Buffer): number {
  let count = 0
  for (const byte of out) if (byte === 0) count++
  return count
}

/** A path's own status (a symlink is not followed), or undefined when it vanished meanwhile. */
function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path)
  } catch {
    // Removed between git's listing and now: `git add` records whatever is there when it runs.
    return undefined
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    // Not written yet.
    return undefined
  }
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
