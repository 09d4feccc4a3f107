import { existsSync, lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { cwdKey } from '../store/home.js'
import { detachedHead, LEGACY_REF, looseRef, sessionRef } from './refs.js'
import { shadowGit, type ShadowGit } from './shadow-git.js'
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
 *   nor rewrites them.
 * - Operations on one engine run one at a time, in call order.
 */
export class Checkpoints {
  readonly gitDir: string
  readonly cwd: string
  private readonly maxFileBytes: number
  private readonly git: ShadowGit
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
    this.git = shadowGit({ gitDir: this.gitDir, workTree: this.cwd, env: options.env, secretEnv: options.secretEnv })
    this.ref = refFor(options.sessionId)
    this.sessionId = options.sessionId
  }

  /**
   * Records the workspace as it stands, as the newest snapshot of this engine's session. When nothing changed since
   * the session's last snapshot, returns that one again and writes nothing. The commit returned is always reachable
   * from the session's own ref, so pruning other sessions never takes it away.
   */
  snapshot(message = 'checkpoint'): Promise<Snapshot> {
    return this.serial(async () => {
      if (this.ref instanceof Error) throw this.ref
      const staged = await this.stage()
      const tip = await this.sessionTip(this.ref)
      if (tip && staged.tree === tip.tree) return { commit: tip.commit, files: tip.files, skipped: staged.skipped }
      const commit = await this.commitTree(staged.tree, tip?.commit, this.sessionId ? `${message}\n\nSession: ${this.sessionId}` : message)
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
    const run = (args: string[]) => this.git(['commit-tree', tree, ...args, '-m', message]).then((out) => out.toString().trim())
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
   * Puts the workspace back as it was at `commit`: changed files get their old content, files created since are
   * removed, deleted files (and their directories) come back. Skipped and ignored files are left alone. Returns
   * what it changed, as seen from `commit`.
   */
  restore(commit: string): Promise<Change[]> {
    return this.serial(async () => {
      const now = await this.stage()
      const changes = await this.diffTrees(commit, now.tree)
      await this.git(['read-tree', '--reset', '-u', commit])
      return changes
    })
  }

  // Rewind (src/checkpoints/rewind.ts): content ids, existence checks and a restore that leaves some paths alone.

  /**
   * The paths that differ between a snapshot and the workspace as it stands, with the content id each has in the
   * snapshot (`was`) and now (`now`). Only the shadow index is written.
   */
  compare(commit: string): Promise<ContentChange[]> {
    return this.serial(async () => parseRawDiff(await this.git(['diff-tree', '-r', '-z', '--no-renames', '--raw', commit, (await this.stage()).tree])))
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
   * mode). Returns what it changed, as seen from `commit`. The tree to restore is built on a private index, so the
   * main index keeps its stat data and unchanged files are not rewritten.
   */
  restoreExcept(commit: string, keep: readonly string[]): Promise<Change[]> {
    return this.serial(async () => {
      const now = await this.stage()
      const differing = parseRawDiff(await this.git(['diff-tree', '-r', '-z', '--no-renames', '--raw', commit, now.tree]))
      const kept = new Set(keep)
      let target = commit
      if (differing.some((c) => kept.has(c.path))) {
        const index = join(this.gitDir, `rewind-index-${process.pid}`)
        try {
          await this.git(['read-tree', commit], undefined, false, index)
          const entries = differing
            .filter((c) => kept.has(c.path))
            .map((c) => (c.now === null ? `0 ${'0'.repeat(40)}\t${c.path}\0` : `${c.nowMode ?? '100644'} ${c.now}\t${c.path}\0`))
          await this.git(['update-index', '-z', '--index-info'], entries.join(''), false, index)
          target = (await this.git(['write-tree'], undefined, false, index)).toString().trim()
        } finally {
          rmSync(index, { force: true })
        }
      }
      await this.git(['read-tree', '--reset', '-u', target])
      return differing.filter((c) => !kept.has(c.path)).map(({ path, kind }) => ({ path, kind }))
    })
  }

  /** Brings the index in line with the workspace and returns the tree it holds. */
  private async stage(): Promise<{ tree: string; skipped: SkippedPath[] }> {
    await this.ensureRepository()
    await this.readHead()
    const status = parseStatus(
      await this.git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all']),
    )
    const skipped: SkippedPath[] = []
    let changed = false
    for (const entry of status) {
      if (entry.path.endsWith('/')) {
        skipped.push({ path: entry.path.slice(0, -1), reason: 'nested-repository' })
        continue
      }
      if (!entry.deleted) {
        const bytes = sizeOf(join(this.cwd, entry.path))
        if (bytes !== undefined && bytes > this.maxFileBytes) {
          skipped.push({ path: entry.path, reason: 'too-large', bytes })
          continue
        }
      }
      changed = true
    }
    if (changed || !this.head) {
      const excludes = skipped.map((s) => `:(exclude,literal)${s.path}\0`).join('')
      await this.git(['add', '--all', '--pathspec-from-file=-', '--pathspec-file-nul'], `:(top)\0${excludes}`)
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
    if (!existsSync(join(this.gitDir, 'HEAD'))) {
      mkdirSync(this.gitDir, { recursive: true })
      await this.git(['init', '--quiet', '--bare'], undefined, true)
      // The untracked cache lets `status` skip directories whose mtime did not change: most of a big workspace.
      await this.git(['config', 'core.untrackedCache', 'true'], undefined, true)
      // Retention's gc must leave session refs loose: a snapshot checks its ref by reading the file (refs.ts).
      await this.git(['config', 'gc.packRefs', 'false'], undefined, true)
    }
    mkdirSync(join(this.gitDir, 'info'), { recursive: true })
    writeFileSync(join(this.gitDir, 'info', 'exclude'), REIN_IGNORE.join('\n') + '\n')
    // Highest-precedence attributes: no filter, end-of-line or encoding conversion, so snapshots are byte-exact.
    writeFileSync(join(this.gitDir, 'info', 'attributes'), '* -text -eol -filter -ident -working-tree-encoding\n')
    writeFileSync(join(this.gitDir, WORKSPACE_FILE), this.cwd + '\n')
    if (!detachedHead(this.gitDir)) {
      const legacy = await this.resolve(LEGACY_REF)
      if (legacy) await this.git(['-c', 'core.logAllRefUpdates=false', 'update-ref', '--no-deref', 'HEAD', legacy])
    }
    // Reflogs the older layout wrote would keep every snapshot reachable, so nothing could ever be pruned.
    rmSync(join(this.gitDir, 'logs'), { recursive: true, force: true })
    this.head = null
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

/** The size of a file as stored (a symlink counts as its target's name), or undefined when it vanished meanwhile. */
function sizeOf(path: string): number | undefined {
  try {
    return lstatSync(path).size
  } catch {
    // Removed between git's listing and now: `git add` records whatever is there when it runs.
    return undefined
  }
}
