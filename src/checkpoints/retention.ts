import { spawn } from 'node:child_process'
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { WORKSPACE_FILE } from './engine.js'
import { LEGACY_REF, SESSION_REFS } from './refs.js'
import type { RetentionRules } from './settings.js'
import { shadowGit, shadowGitInvocation, ShadowGitError } from './shadow-git.js'

/**
 * Retention of one shadow repository (docs/checkpoints.md, Retention).
 *
 * What holds:
 * - The unit kept or removed is a session's ref (all of its snapshots at once); the legacy workspace-wide chain
 *   counts as one such unit. A unit's age is its newest snapshot's commit time.
 * - A unit is kept when it is among the `keepSessions` newest, or its newest snapshot is younger than `keepDays`, or
 *   it is the session being opened (`keep`). Everything else is removed.
 * - Removing a ref is conditional on it still naming the commit that was judged: a session that snapshotted
 *   meanwhile is young again, and stays.
 * - Only Rein's own repository is read or written, with the same safe environment as every snapshot.
 */

/** One unit of retention: a session's snapshot ref (or the legacy chain, `session` null). */
export interface SnapshotRef {
  ref: string
  session: string | null
  commit: string
  /** The newest snapshot's commit time, ms since the epoch. */
  time: number
}

export interface RetentionPlan {
  keep: SnapshotRef[]
  remove: SnapshotRef[]
}

const DAY_MS = 24 * 60 * 60 * 1000

/** Which units the rules keep and which they remove, at time `now` (ms). Pure. */
export function planRetention(refs: readonly SnapshotRef[], rules: RetentionRules, now: number, keep: ReadonlySet<string> = new Set()): RetentionPlan {
  const newestFirst = [...refs].sort((a, b) => b.time - a.time || a.ref.localeCompare(b.ref))
  const plan: RetentionPlan = { keep: [], remove: [] }
  newestFirst.forEach((entry, rank) => {
    const kept = rank < rules.keepSessions || now - entry.time < rules.keepDays * DAY_MS || (entry.session !== null && keep.has(entry.session))
    plan[kept ? 'keep' : 'remove'].push(entry)
  })
  return plan
}

/** A shadow repository that is gone or cannot be read: one sentence naming it and what follows. */
export class CheckpointRepositoryError extends Error {
  readonly code = 'CheckpointRepositoryError'
  private constructor(
    readonly gitDir: string,
    message: string,
  ) {
    super(message)
  }

  static damaged(gitDir: string, detail: string): CheckpointRepositoryError {
    return new CheckpointRepositoryError(
      gitDir,
      `The checkpoint repository ${gitDir} is damaged (${detail}); delete that directory to start afresh (its snapshots cannot be restored).`,
    )
  }

  static missing(gitDir: string): CheckpointRepositoryError {
    return new CheckpointRepositoryError(gitDir, `The checkpoint repository ${gitDir} no longer exists, so the snapshots it held cannot be restored.`)
  }
}

export interface RetentionTarget {
  /** The shadow repository (`$REIN_HOME/checkpoints/<workspace key>`). */
  gitDir: string
  env?: NodeJS.ProcessEnv
  secretEnv?: readonly string[]
}

/** A git runner for repository-wide work: no work tree, and run from inside the repository (the workspace may be gone). */
function repositoryGit(target: RetentionTarget) {
  const run = shadowGit({ gitDir: target.gitDir, workTree: target.gitDir, env: target.env, secretEnv: target.secretEnv })
  return (args: readonly string[], input?: string) =>
    run(args, input, true).catch((error: unknown) => {
      if (error instanceof ShadowGitError) throw CheckpointRepositoryError.damaged(target.gitDir, `git ${args.filter((a) => !a.includes('=') && a !== '-c')[0]}: ${lastLine(error.stderr) || `exit ${error.exitCode}`}`)
      throw error
    })
}

/** Every retention unit in a shadow repository, newest snapshot first. */
export async function snapshotRefs(target: RetentionTarget): Promise<SnapshotRef[]> {
  if (!existsSync(target.gitDir)) throw CheckpointRepositoryError.missing(target.gitDir)
  if (!existsSync(join(target.gitDir, 'HEAD'))) throw CheckpointRepositoryError.damaged(target.gitDir, 'it has no HEAD')
  const git = repositoryGit(target)
  const out = await git(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(committerdate:unix)', 'refs/rein/'])
  const refs: SnapshotRef[] = []
  for (const line of out.toString('utf8').split('\n')) {
    const [ref, commit, seconds] = line.split('\0')
    if (!ref || !commit) continue
    const session = ref.startsWith(SESSION_REFS) ? ref.slice(SESSION_REFS.length) : ref === LEGACY_REF ? null : undefined
    if (session === undefined) continue
    refs.push({ ref, session, commit, time: Number(seconds) * 1000 || 0 })
  }
  return refs.sort((a, b) => b.time - a.time)
}

/** How many snapshot commits the refs reach (HEAD included). */
export async function snapshotCount(target: RetentionTarget): Promise<number> {
  const git = repositoryGit(target)
  const out = await git(['rev-list', '--count', '--all'])
  return Number(out.toString().trim()) || 0
}

/** What a prune did (or, with `dryRun`, would do). */
export interface PruneReport {
  gitDir: string
  /** The workspace the repository covers, when it says (repositories made before it did are unnamed). */
  workspace?: string
  removed: SnapshotRef[]
  kept: SnapshotRef[]
  /** Bytes the repository took before and after (after: only when the gc was waited for). */
  bytesBefore: number
  bytesAfter?: number
}

export interface PruneOptions extends RetentionTarget {
  rules: RetentionRules
  /** The time the rules are judged at, ms (a parameter so tests need no clock). */
  now: number
  /** Sessions never removed: the one being opened. */
  keep?: ReadonlySet<string>
  dryRun?: boolean
  /** `wait` (the CLI: reports bytes freed) or `detach` (on session open: the gc outlives a short run). */
  gc: 'wait' | 'detach'
}

/**
 * How old (by file time) an unreachable object must be before gc deletes it, in seconds. Another Rein process may
 * be taking a snapshot while this prune runs: its new blobs, trees and commit are unreachable until its ref moves,
 * and this grace keeps them. Objects of pruned sessions are as old as those sessions' snapshots; any written in the
 * last few minutes are collected by the next prune.
 */
export const PRUNE_GRACE_SECONDS = 600

/**
 * Collects every object no ref, HEAD or the index reaches (after the grace above). Reflogs expire first (older
 * repositories wrote them, and they would keep everything); session refs stay loose (src/checkpoints/refs.ts).
 */
const GC = ['-c', 'gc.packRefs=false', '-c', 'gc.reflogExpire=now', '-c', 'gc.reflogExpireUnreachable=now', 'gc', `--prune=${PRUNE_GRACE_SECONDS}.seconds.ago`, '--quiet']

/** Deletes the refs the rules remove, then collects the objects only they reached (`git gc`, see `GC`). */
export async function pruneRepository(options: PruneOptions): Promise<PruneReport> {
  const refs = await snapshotRefs(options)
  const plan = planRetention(refs, options.rules, options.now, options.keep)
  const report: PruneReport = {
    gitDir: options.gitDir,
    workspace: workspaceOf(options.gitDir),
    removed: [],
    kept: plan.keep,
    bytesBefore: diskUse(options.gitDir),
  }
  if (options.dryRun) return { ...report, removed: plan.remove }
  const git = repositoryGit(options)
  for (const entry of plan.remove) {
    // Conditional on the judged commit: a ref that moved meanwhile (a new snapshot) is young again and stays.
    const removed = await git(['update-ref', '-d', entry.ref, entry.commit]).then(
      () => true,
      () => false,
    )
    if (removed) report.removed.push(entry)
    else report.kept.push(entry)
  }
  if (!report.removed.length) return { ...report, bytesAfter: report.bytesBefore }
  if (options.gc === 'detach') {
    detachGit(options, [...shadowGitInvocation(options).safe, ...GC])
    return report
  }
  await git(GC)
  return { ...report, bytesAfter: diskUse(options.gitDir) }
}

/** Starts git on its own (detached, output discarded), so this process may exit while it runs. */
function detachGit(target: RetentionTarget, argv: string[]): void {
  const { env } = shadowGitInvocation(target)
  const child = spawn('git', argv, { cwd: target.gitDir, env, detached: true, stdio: 'ignore' })
  // A git that cannot start leaves garbage for the next prune to collect; nothing is lost.
  child.on('error', () => undefined)
  child.unref()
}

/** The workspace a repository names in its `rein-workspace` file, if any. */
export function workspaceOf(gitDir: string): string | undefined {
  try {
    return readFileSync(join(gitDir, WORKSPACE_FILE), 'utf8').trim() || undefined
  } catch {
    // Made before the file existed, or unreadable: the repository is listed by its directory name instead.
    return undefined
  }
}

/** Bytes under a directory (files as stored, links not followed). */
export function diskUse(dir: string): number {
  let total = 0
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    // Gone or unreadable while being measured (a concurrent gc): it holds nothing to count.
    return 0
  }
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += diskUse(path)
    else {
      try {
        total += lstatSync(path).size
      } catch {
        // Removed between listing and stat (a concurrent gc): counts as freed.
      }
    }
  }
  return total
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.trim() ?? ''
}
