import { join, resolve } from 'node:path'
import { feedSupported, offerFeed, watchTree, withdrawFeed, type ChangeFeed, type ChangeFeedOptions, type FeedMark } from '../fs/change-feed.js'
import { cwdKey } from '../store/home.js'
import { commitSnapshot, type SnapshotHead, countEntries, describeCommit, moveRefs, refFor } from './snapshot-commit.js'
import { ModeManifest } from './modes.js'
import { homeInside, isProtectedPath, protectedPatterns } from './protected.js'
import { detachedHead, looseRef } from './refs.js'
import { closePrivateIndex, installPrivateIndex, openPrivateIndex } from './private-index.js'
import { prepareRepository, resolveCommit } from './repository.js'
import { applyRestore, planRestore, restoreToken, type RestoreOptions, type RestorePlan } from './restore-plan.js'
import { removeTemporaries, type RestoreResult } from './restore.js'
import { shadowGit, ShadowGitAbandoned, type ShadowGit } from './shadow-git.js'
import { applyListing, identityOf, listWorkspace, lstatOf, type IndexMemo, type Listing, type SkippedPath, type Staged, type StagingOptions } from './staging.js'
import { changesFromListing, type StepChange } from './step-listing.js'
import { parseRawDiff, type ContentChange } from './tree-diff.js'

export { REIN_IGNORE, WORKSPACE_FILE } from './repository.js'
export { restoreToken, type RestorePlan } from './restore-plan.js'
export type { SkippedPath } from './staging.js'
export type { StepChange } from './step-listing.js'

/** Files larger than this (bytes) are left out of snapshots by default, and each snapshot names them. */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024

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
  /** How `watch` starts the change feed: the directory cap and the watch call (tests pass one that fails). */
  changeFeed?: Pick<ChangeFeedOptions, 'maxDirectories' | 'watcher'>
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

type Head = SnapshotHead

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
 * - Work no caller waits for — the first staging `watch` starts, the index writes a step's listing leaves for later,
 *   a snapshot whose caller passed a `signal` that fired — is abandoned by `close` (its git stopped with SIGTERM,
 *   after which git has removed its locks): the shadow index and refs stay as they were before that work, and the
 *   next staging does it again. A ref is never moved by abandoned work, and nothing a caller awaits is abandoned.
 * - The index writes a step's listing leaves for later never lock the shadow index: they run on a private index that
 *   takes its place only once they are done, in this live process (private-index.ts). A git they started that
 *   outlives a SIGKILLed Rein holds nothing the next command (a rewind recovering from the kill) needs.
 */
export class Checkpoints {
  readonly gitDir: string
  readonly cwd: string
  private readonly maxFileBytes: number
  private readonly git: ShadowGit
  /** Fires when `close` abandons the work no caller waits for. */
  private readonly abandon = new AbortController()
  /** `git` for that work: its commands are stopped when it is abandoned. */
  private readonly backgroundGit: ShadowGit
  private readonly gitOptions: Parameters<typeof shadowGit>[0]
  /** Openers of the gates behind which deferred index writes wait (`proceed`). */
  private readonly gates: (() => void)[] = []
  /** `$REIN_HOME` relative to the workspace when it lies inside it: never snapshotted or restored. */
  private readonly homeInWorkspace: string | undefined
  private readonly protectedPatterns: string[]
  private readonly modes: ModeManifest
  private readonly notices: string[] = []
  /** The session's ref, or the error that its id cannot name one (reported by the first snapshot). */
  private readonly ref: string | Error
  private readonly sessionId: string | undefined
  private readonly feedOptions: CheckpointOptions['changeFeed']
  /** What the detached HEAD (the workspace's latest snapshot, any session's) named when last read. */
  private head: Head | null | undefined
  /** This session's latest snapshot when last read; undefined until the first snapshot looks. */
  private tip: Head | null | undefined
  private queue: Promise<unknown> = Promise.resolve()
  /** What this engine last left in the shadow index (staging.ts). */
  private readonly index: { current?: IndexMemo } = {}
  /** The workspace's change feed once `watch` started it (src/fs/change-feed.ts). */
  private feed: ChangeFeed | undefined
  /** The last staging, with the feed's mark taken before its walk began: while the feed stays quiet, its tree is the workspace. */
  private lastStaging: { mark: FeedMark; staged: Staged } | undefined
  /** How many times a step's snapshot reused the last staging instead of walking (for tests and benches). */
  reused = 0

  constructor(options: CheckpointOptions) {
    this.cwd = resolve(options.cwd)
    this.gitDir = join(resolve(options.home), 'checkpoints', cwdKey(this.cwd))
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES
    this.gitOptions = {
      gitDir: this.gitDir,
      workTree: this.cwd,
      env: options.env,
      secretEnv: options.secretEnv,
      lockWaitMs: options.lockWaitMs,
      onNotice: (message: string) => this.notices.push(message),
    }
    this.git = shadowGit(this.gitOptions)
    this.backgroundGit = shadowGit({ ...this.gitOptions, signal: this.abandon.signal })
    this.ref = refFor(options.sessionId)
    this.sessionId = options.sessionId
    this.feedOptions = options.changeFeed
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
   * from the session's own ref, so pruning other sessions never takes it away. A `signal` that fires before the
   * refs move (the caller stopped waiting, and then the session closed) stops the staging and rejects with
   * `ShadowGitAbandoned`, with no ref moved.
   */
  snapshot(message = 'checkpoint', options: { modesOf?: readonly string[]; reuse?: boolean; signal?: AbortSignal } = {}): Promise<Snapshot> {
    return this.serial(async () => {
      if (this.ref instanceof Error) throw this.ref
      const git = options.signal ? shadowGit({ ...this.gitOptions, signal: options.signal }) : this.git
      const staged = (options.reuse && !options.modesOf?.length && (await this.reusable())) || (await this.stage(git))
      if (options.signal?.aborted) throw new ShadowGitAbandoned([])
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
      const commit = await commitSnapshot(this.git, this.gitDir, staged.tree, tip?.commit, `${message}\n\n${this.sessionId ? `Session: ${this.sessionId}\n` : ''}${block}\n`)
      // One transaction: the session's ref and HEAD move together, both to the new snapshot.
      // No reflog: it would keep every snapshot alive past retention (git writes one when a work tree is given).
      await moveRefs(this.git, this.gitDir, this.ref, commit)
      const files = staged.files ?? (await this.filesIn(staged.tree))
      // The count now known is remembered with the index that holds the tree, so later stagings move it by their delta.
      if (this.index.current?.tree === staged.tree && this.index.current.files === undefined) this.index.current.files = files
      staged.files = files
      this.head = { commit, tree: staged.tree, files }
      this.tip = this.head
      return { commit, files, skipped: staged.skipped }
    })
  }

  /**
   * How many files `tree` holds: the detached HEAD's count moved by what was added and deleted since (a diff of the
   * two trees reads only the subtrees that differ), or, with no HEAD yet, counted once from the index.
   */
  private async filesIn(tree: string): Promise<number> {
    if (!this.head) return countEntries(await this.git(['ls-files', '-z']))
    if (tree === this.head.tree) return this.head.files
    const out = (await this.git(['diff-tree', '-r', '-z', '--no-renames', '--name-status', this.head.tree, tree])).toString('latin1').split('\0')
    let files = this.head.files
    for (let i = 0; i + 1 < out.length; i += 2) files += out[i] === 'A' ? 1 : out[i] === 'D' ? -1 : 0
    return files
  }

  /**
   * The session's latest snapshot. Read from the loose ref file when it still names the cached one (no git process
   * on the common path); otherwise asked of git, which also covers a packed ref and a ref pruned meanwhile.
   */
  private async sessionTip(ref: string): Promise<Head | null> {
    if (this.tip && looseRef(this.gitDir, ref) === this.tip.commit) return this.tip
    const commit = await this.resolve(ref)
    this.tip = commit ? (commit === this.head?.commit ? this.head : await describeCommit(this.git, commit)) : null
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

  private planNow(commit: string): Promise<RestorePlan> {
    return this.stage().then((now) => planRestore(this.restoreOptions(), commit, now.tree))
  }

  private apply(plan: RestorePlan, keep: readonly string[], token: string): Promise<RestoreResult> {
    return applyRestore(this.restoreOptions(), plan, keep, token)
  }

  private restoreOptions(): RestoreOptions {
    return { git: this.git, cwd: this.cwd, maxFileBytes: this.maxFileBytes, isProtected: (path) => this.isProtected(path) }
  }

  /** The modes block of a snapshot commit's message, for comparing with the manifest now. */
  private async modesBlock(commit: string): Promise<string> {
    const message = (await this.git(['cat-file', 'commit', commit])).toString('utf8')
    const at = message.indexOf('\nModes: ')
    return at < 0 ? '' : message.slice(at + 1).trimEnd()
  }

  /** Brings the index in line with the workspace and returns the tree it holds (staging.ts). */
  private async stage(git: ShadowGit = this.git): Promise<Staged> {
    await this.ensureRepository()
    await this.readHead()
    const mark = await this.feed?.mark()
    const options = this.stagingOptions(git)
    const staged = await applyListing(options, await listWorkspace(options, this.index), this.head ?? undefined, this.index)
    this.lastStaging = mark ? { mark, staged } : undefined
    return staged
  }

  private stagingOptions(git: ShadowGit = this.git): StagingOptions {
    return { git, gitDir: this.gitDir, cwd: this.cwd, maxFileBytes: this.maxFileBytes, modes: this.modes }
  }

  /**
   * The last staging again, without a walk, when that is sure to be the workspace now: the feed saw nothing written
   * since just before that staging's walk, and the shadow index is still the file this engine left (no other process
   * staged meanwhile). Undefined otherwise: the caller walks.
   */
  private async reusable(): Promise<Staged | undefined> {
    const last = this.lastStaging
    const memo = this.index.current
    if (!last || !this.feed || !memo || memo.tree !== last.staged.tree) return undefined
    if (identityOf(join(this.gitDir, 'index')) !== memo.identity) return undefined
    if (!(await this.feed.quietSince(last.mark))) return undefined
    await this.readHead()
    this.reused++
    return last.staged
  }

  /**
   * Starts the workspace's change feed (src/fs/change-feed.ts) and, in the background, the first staging of the
   * session, so that a first snapshot of a big workspace is under way while the model thinks. Idempotent; a feed
   * that cannot start (not Linux, a network filesystem, the watch limit) leaves every snapshot to walk, as before.
   */
  watch(): void {
    if (this.feed !== undefined) return
    const skipped = new Set([this.homeInWorkspace].filter((p): p is string => p !== undefined))
    // A `.git` directory's content is never snapshotted; $REIN_HOME inside the workspace is Rein's own writing.
    // node_modules/ is in REIN_IGNORE (the feed gives up if a .gitignore re-includes it).
    const skip = (path: string, name: string) => name === '.git' || name === 'node_modules' || skipped.has(path)
    this.feed = watchTree(this.cwd, { ...this.feedOptions, skip, allowed: feedSupported(this.cwd) })
    offerFeed(this.cwd, this.feed, skip)
    // Nobody waits for it: `close` abandons it (a short `rein -p` that only read exits without waiting for git).
    this.serial(() => this.stage(this.backgroundGit)).catch(() => undefined)
  }

  /**
   * Ends the engine's session: stops the change feed (later snapshots walk) and abandons the work no caller waits
   * for (see the class's invariants). Resolves when every git it started has exited.
   */
  close(): Promise<void> {
    if (this.feed) {
      withdrawFeed(this.cwd, this.feed)
      this.feed.close()
    }
    this.abandon.abort()
    return this.settled()
  }

  /**
   * Lets the index writes a step's listing left for later start now (`stepChanges`). The extension calls it once the
   * next request is on its way, so those two git processes run while the model thinks, not between the tool's end
   * and the request; any later engine call (and `settled`) lets them start first too.
   */
  proceed(): void {
    for (const open of this.gates.splice(0)) open()
  }

  /** Resolves when no engine operation is running or queued (the deferred part of a step's listing included). */
  settled(): Promise<void> {
    this.proceed()
    return this.queue.then(() => undefined)
  }

  /**
   * What a step changed since its snapshot `commit`, with each path's content id now: `compare` (protected paths
   * left out), but when the shadow index still holds exactly that snapshot (the usual case right after it), read
   * from one `git status` alone, and the index writes that bring the index in line run after this resolves, before
   * any later engine call (so the next snapshot, when the feed stays quiet, costs no walk at all).
   */
  stepChanges(commit: string): Promise<StepChange[]> {
    return this.serialEarly(async () => {
      await this.ensureRepository()
      await this.readHead()
      const memo = this.index.current
      const index = join(this.gitDir, 'index')
      const asBefore = this.head?.commit === commit && memo?.tree === this.head.tree && identityOf(index) === memo.identity
      if (!asBefore) return { value: await this.compareNow(commit) }
      const mark = await this.feed?.mark()
      const listing = await listWorkspace(this.stagingOptions(), this.index)
      // The index the listing read (its status may have written refreshed stat data back): the deferred writes apply to it alone.
      const listed = identityOf(index)
      const changes = changesFromListing(listing, this.cwd)
      if (!changes) {
        const staged = await applyListing(this.stagingOptions(), listing, this.head ?? undefined, this.index)
        this.lastStaging = mark ? { mark, staged } : undefined
        return { value: await this.diffNow(commit, staged.tree) }
      }
      return { value: changes.filter((c) => !this.isProtected(c.path)), rest: () => this.writeDeferred(listing, listed, mark) }
    })
  }

  /**
   * The index writes a step's listing left for later, made on a private index that takes the shadow index's place
   * only once they are done (private-index.ts): a git still running after Rein was killed holds no lock the next
   * command needs. They apply only to the index the listing read (`listed`, its identity): when another process
   * staged since, or the private index cannot be made or put in place, they are dropped and the next staging makes
   * them (it walks: nothing is remembered of this listing).
   */
  private async writeDeferred(listing: Listing, listed: string, mark: FeedMark | undefined): Promise<void> {
    this.index.current = undefined
    this.lastStaging = undefined
    const own = openPrivateIndex(this.gitDir, listed)
    if (!own) return
    try {
      const git = shadowGit({ ...this.gitOptions, signal: this.abandon.signal, indexFile: own.file })
      // What applyListing remembers is of the private file; the engine's memory is set once it is installed.
      const staged = await applyListing({ ...this.stagingOptions(git), indexFile: own.file }, listing, this.head ?? undefined, {})
      const identity = installPrivateIndex(own)
      if (identity === undefined) return
      this.index.current = { identity, tree: staged.tree, files: staged.files }
      this.lastStaging = mark ? { mark, staged } : undefined
    } finally {
      closePrivateIndex(own)
    }
  }

  private async compareNow(commit: string): Promise<StepChange[]> {
    return this.diffNow(commit, (await this.stage()).tree)
  }

  private async diffNow(commit: string, tree: string): Promise<StepChange[]> {
    const changes = parseRawDiff(await this.git(['diff-tree', '-r', '-z', '--no-renames', '--raw', commit, tree]))
    return changes.filter((c) => !this.isProtected(c.path)).map(({ path, kind, now }) => ({ path, kind, now }))
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

  /** Creates or upgrades the shadow repository, once per engine (repository.ts). */
  private async ensureRepository(): Promise<void> {
    if (this.head !== undefined) return
    await prepareRepository({
      git: this.git,
      gitDir: this.gitDir,
      cwd: this.cwd,
      protectedPatterns: this.protectedPatterns,
      modes: this.modes,
      notice: (message) => this.notices.push(message),
    })
    this.head = null
  }

  /** Follows the detached HEAD, which another process's snapshot may have moved since this engine last looked. */
  private async readHead(): Promise<void> {
    const commit = detachedHead(this.gitDir)
    if (commit === (this.head?.commit ?? null)) return
    this.head = commit ? await describeCommit(this.git, commit) : null
  }

  /** The commit a ref names, or '' when it names none. */
  private resolve(ref: string): Promise<string> {
    return resolveCommit(this.git, ref)
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    // Deferred index writes queued before this call run first: let them start.
    this.proceed()
    const next = this.queue.then(work, work)
    this.queue = next.catch(() => undefined)
    return next
  }

  /**
   * `serial`, for work whose result is known before it is done: the caller has the value at once; `rest` waits for
   * `proceed` (or the next engine call), the queue waits for `rest`, and `close` abandons it.
   */
  private serialEarly<T>(work: () => Promise<{ value: T; rest?: () => Promise<void> }>): Promise<T> {
    const gate = new Promise<void>((open) => this.gates.push(open))
    const next = this.queue.then(work, work)
    this.queue = next
      .then(async (r) => {
        if (!r.rest) return
        await gate
        if (!this.abandon.signal.aborted) await r.rest()
      })
      .catch(() => undefined)
    return next.then((r) => r.value)
  }
}
