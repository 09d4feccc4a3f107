import { runSafeGit } from '../trust/git.js'

/** What the runtime context says about version control. `branch` is null on a detached HEAD. */
export type GitState =
  | { kind: 'repository'; branch: string | null; dirty: boolean | null }
  | { kind: 'none' }
  | { kind: 'unavailable' }

/** How long one `git status` may take before the facts say the status is unknown. */
const GIT_TIMEOUT_MS = 3000

/**
 * The branch and whether the working tree has changes (untracked files count), from one `git status` in `cwd`.
 * Never throws: without git on the PATH the answer is `unavailable`, outside a repository `none`, and a status that
 * times out (huge trees) reports the branch as unknown-dirty (`dirty: null`) rather than holding up the step.
 * `--no-optional-locks` keeps it from taking the index lock the user's own git commands may need. The probe runs
 * with the repository's program-running config turned off and without secrets (`runSafeGit`), and does not look
 * into submodules (whose own config would apply there).
 */
export async function gitState(cwd: string): Promise<GitState> {
  const { error, stdout } = await runSafeGit(
    ['--no-optional-locks', 'status', '--porcelain=v1', '--branch', '--untracked-files=normal', '--ignore-submodules=all'],
    { cwd, timeoutMs: GIT_TIMEOUT_MS },
  )
  if (!error) return parseStatus(stdout)
  if (error.code === 'ENOENT') return { kind: 'unavailable' }
  if (error.killed) return { kind: 'repository', branch: null, dirty: null }
  return { kind: 'none' }
}

/** Reads `git status --porcelain=v1 --branch`: a `## ` line naming the branch, then one line per changed path. */
export function parseStatus(stdout: string): GitState {
  const lines = stdout.split('\n').filter((l) => l.length > 0)
  const head = lines[0]?.startsWith('## ') ? lines[0].slice(3) : ''
  const dirty = lines.some((l) => !l.startsWith('## '))
  return { kind: 'repository', branch: branchOf(head), dirty }
}

function branchOf(head: string): string | null {
  const unborn = /^(?:No commits yet on|Initial commit on) (.+)$/.exec(head)
  if (unborn) return unborn[1]
  if (head === '' || head.startsWith('HEAD (no branch)')) return null
  const end = head.indexOf('...')
  return (end >= 0 ? head.slice(0, end) : head.split(' ')[0]) || null
}
