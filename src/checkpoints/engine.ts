import { existsSync, lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { cwdKey } from '../store/home.js'
import { shadowGit, type ShadowGit } from './shadow-git.js'
import { parseRawDiff, type ContentChange } from './tree-diff.js'

/** Files larger than this (bytes) are left out of snapshots by default, and each snapshot names them. */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024

/** Paths no snapshot holds, whatever `.gitignore` says (gitignore syntax, in the shadow repository's info/exclude). */
export const REIN_IGNORE: readonly string[] = ['.git', 'node_modules/']

/** The ref that keeps every snapshot of a workspace reachable, newest first. */
const REF = 'refs/rein/checkpoints'

export interface CheckpointOptions {
  /** `$REIN_HOME`; the repository lives at `checkpoints/<cwdKey(cwd)>` under it. */
  home: string
  /** The workspace snapshots cover. */
  cwd: string
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
  private head: Head | null | undefined
  private queue: Promise<unknown> = Promise.resolve()

  constructor(options: CheckpointOptions) {
    this.cwd = resolve(options.cwd)
    this.gitDir = join(resolve(options.home), 'checkpoints', cwdKey(this.cwd))
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES
    this.git = shadowGit({ gitDir: this.gitDir, workTree: this.cwd, env: options.env, secretEnv: options.secretEnv })
  }

  /** Records the workspace as it stands. When nothing changed since the last snapshot, returns that one again. */
  snapshot(message = 'checkpoint'): Promise<Snapshot> {
    return this.serial(async () => {
      const staged = await this.stage()
      const head = this.head
      if (head && staged.tree === head.tree) return { commit: head.commit, files: head.files, skipped: staged.skipped }
      const parent = head ? ['-p', head.commit] : []
      const commit = (await this.git(['commit-tree', staged.tree, ...parent, '-m', message])).toString().trim()
      await this.git(['update-ref', REF, commit])
      const files = countEntries(await this.git(['ls-files', '-z']))
      this.head = { commit, tree: staged.tree, files }
      return { commit, files, skipped: staged.skipped }
    })
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

  /** Creates the shadow repository on first use and reads where the last snapshot stands. */
  private async ensureRepository(): Promise<void> {
    if (this.head !== undefined) return
    if (!existsSync(join(this.gitDir, 'HEAD'))) {
      mkdirSync(this.gitDir, { recursive: true })
      await this.git(['init', '--quiet', '--bare'], undefined, true)
      // The untracked cache lets `status` skip directories whose mtime did not change: most of a big workspace.
      await this.git(['config', 'core.untrackedCache', 'true'], undefined, true)
      // HEAD names the latest snapshot, so `status` lists only what changed since it.
      await this.git(['symbolic-ref', 'HEAD', REF], undefined, true)
    }
    mkdirSync(join(this.gitDir, 'info'), { recursive: true })
    writeFileSync(join(this.gitDir, 'info', 'exclude'), REIN_IGNORE.join('\n') + '\n')
    // Highest-precedence attributes: no filter, end-of-line or encoding conversion, so snapshots are byte-exact.
    writeFileSync(join(this.gitDir, 'info', 'attributes'), '* -text -eol -filter -ident -working-tree-encoding\n')
    const commit = await this.git(['rev-parse', '--verify', '--quiet', `${REF}^{commit}`]).then(
      (out) => out.toString().trim(),
      // The ref does not exist yet: no snapshot was taken, and the first one starts the history.
      () => '',
    )
    if (!commit) {
      this.head = null
      return
    }
    const tree = (await this.git(['rev-parse', `${commit}^{tree}`])).toString().trim()
    const files = countEntries(await this.git(['ls-tree', '-r', '-z', '--name-only', tree]))
    this.head = { commit, tree, files }
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
