import { execFile } from 'node:child_process'

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
 * `--no-optional-locks` keeps it from taking the index lock the user's own git commands may need.
 */
export function gitState(cwd: string): Promise<GitState> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['--no-optional-locks', 'status', '--porcelain=v1', '--branch', '--untracked-files=normal'],
      {
        cwd,
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' },
      },
      (error, stdout) => {
        if (!error) return resolve(parseStatus(stdout))
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT') return resolve({ kind: 'unavailable' })
        if (error.killed) return resolve({ kind: 'repository', branch: null, dirty: null })
        resolve({ kind: 'none' })
      },
    )
  })
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
