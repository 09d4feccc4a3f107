import { existsSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { CheckpointRepositoryError, diskUse, snapshotCount, snapshotRefs, workspaceOf } from './retention.js'
import type { RetentionTarget } from './retention.js'
import { shadowGit, ShadowGitError } from './shadow-git.js'

/** One shadow repository under `$REIN_HOME/checkpoints`, as `rein checkpoints list` shows it. */
export interface WorkspaceCheckpoints {
  gitDir: string
  /** The workspace it covers, when the repository names it. */
  workspace?: string
  sessions: number
  snapshots: number
  bytes: number
  /** The newest snapshot's commit time (ms), if any. */
  newest?: number
}

/** The shadow repositories under a home, by directory name; none when the checkpoints directory does not exist. */
export function shadowRepositories(home: string): string[] {
  const root = join(resolve(home), 'checkpoints')
  if (!existsSync(root)) return []
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(root, entry.name))
    .sort()
}

/** Counts and disk use of one repository; throws `CheckpointRepositoryError` when it cannot be read. */
export async function inventory(target: RetentionTarget): Promise<WorkspaceCheckpoints> {
  const refs = await snapshotRefs(target)
  return {
    gitDir: target.gitDir,
    workspace: workspaceOf(target.gitDir),
    sessions: refs.filter((r) => r.session !== null).length,
    snapshots: await snapshotCount(target),
    bytes: diskUse(target.gitDir),
    ...(refs.length ? { newest: refs[0].time } : {}),
  }
}

/**
 * Which of `commits` the repository still holds (the others were pruned). Throws `CheckpointRepositoryError` when
 * the repository is gone or cannot be read.
 */
export async function presentCommits(target: RetentionTarget, commits: readonly string[]): Promise<Set<string>> {
  if (!existsSync(target.gitDir)) throw CheckpointRepositoryError.missing(target.gitDir)
  if (!existsSync(join(target.gitDir, 'HEAD'))) throw CheckpointRepositoryError.damaged(target.gitDir, 'it has no HEAD')
  const git = shadowGit({ gitDir: target.gitDir, workTree: target.gitDir, env: target.env, secretEnv: target.secretEnv })
  const out = await git(['cat-file', '--batch-check=%(objectname) %(objecttype)'], commits.map((c) => `${c}\n`).join(''), true).catch((error: unknown) => {
    throw CheckpointRepositoryError.damaged(target.gitDir, `git cat-file: ${error instanceof ShadowGitError ? error.stderr.trim().split('\n').at(-1) : String(error)}`)
  })
  const present = new Set<string>()
  for (const line of out.toString('utf8').split('\n')) {
    const [id, type] = line.split(' ')
    if (type === 'commit') present.add(id)
  }
  return present
}
