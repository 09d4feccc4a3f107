import { execFileSync } from 'node:child_process'
import { lstatSync, readdirSync, readFileSync, realpathSync, unlinkSync, type Stats } from 'node:fs'
import { basename, join, resolve, sep } from 'node:path'

/**
 * Git's lock files in a shadow repository (`index.lock`, `HEAD.lock`, `refs/…/<ref>.lock`), judged and healed
 * (docs/checkpoints.md, "Locks that heal").
 *
 * Git does not write its process id into a lock, so "held" is judged by the processes alive: a lock is **held** while
 * a git process works on this repository (its command line names the repository with `--git-dir`, which every shadow
 * git call does, or its environment has `GIT_DIR` set to it, which is how git's own children such as the ones `gc`
 * starts learn it), and **stale** when none does: git removes its locks when it exits, even on failure, so a lock
 * that outlived every git process of the repository was left by one that was killed. On Linux the processes are read
 * from `/proc`; elsewhere from `ps`; when neither answers, a lock is taken as held (never removed on a guess).
 *
 * Race: the lock is looked at before and after the process scan and removed only when it is the same file both times
 * (same inode and change time): a lock created during the scan belongs to a process the scan may have missed.
 */

/** How long a snapshot or restore waits for a lock a live git holds before giving up (ms). */
export const LOCK_WAIT_MS = 2_000
const POLL_MS = 50

/** A process that may hold a lock: its id and command line, for the sentence that names it. */
export interface LockHolder {
  pid: number
  command: string
}

/** A lock a live process still held after the wait: the one sentence names the file and the process. */
export class ShadowGitLockError extends Error {
  override readonly name = 'ShadowGitLockError'
  constructor(
    readonly lock: string,
    readonly holders: readonly LockHolder[] | undefined,
    waitedMs: number,
  ) {
    const who = holders?.length
      ? `held by ${holders
          .slice(0, 3)
          .map((h) => `${h.command.slice(0, 80)} (pid ${h.pid})`)
          .join(', ')}, still running after ${waitedMs / 1000} s`
      : `and no process holding it could be identified after ${waitedMs / 1000} s; if no Rein or git is using the checkpoints, delete it`
    super(`the checkpoint repository is locked: ${lock} is ${who}`)
  }
}

/** The notice for a stale lock Rein removed. */
export function staleLockNotice(lock: string): string {
  return `Removed a stale lock left in the checkpoint repository by a git process that is gone: ${lock}.`
}

/** The lock file named by a git error message ("Unable to create '…/index.lock': File exists."), if any. */
export function lockFileIn(stderr: string): string | undefined {
  return /Unable to create '([^']+\.lock)': File exists/.exec(stderr)?.[1]
}

/**
 * Settles a lock that made a git command fail, so the command can be run again: returns `removed` after deleting a
 * stale lock, `released` once a live holder let go, and throws `ShadowGitLockError` when a live process still holds
 * it after `waitMs`. Only a lock inside `gitDir` is ever touched (`foreign` for any other).
 */
export async function settleLock(lock: string, gitDir: string, waitMs = LOCK_WAIT_MS): Promise<'removed' | 'released' | 'foreign'> {
  const file = resolve(gitDir, lock)
  // Not a lock of the shadow repository: never Rein's to judge, so the command's own error stands.
  if (!inside(file, gitDir) || !file.endsWith('.lock')) return 'foreign'
  const deadline = Date.now() + waitMs
  let holders: LockHolder[] | undefined = []
  for (;;) {
    const seen = statOf(file)
    if (!seen) return 'released'
    holders = gitProcessesOf(gitDir)
    const still = statOf(file)
    if (!still) return 'released'
    if (holders?.length === 0 && sameFile(seen, still)) {
      // Removed only when it is still the file judged stale (a new lock has another inode or change time).
      const last = statOf(file)
      if (last && sameFile(last, seen)) {
        try {
          unlinkSync(file)
        } catch (error) {
          // Gone meanwhile (another process healed it): as good as removed.
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
        }
        return 'removed'
      }
      continue
    }
    if (Date.now() >= deadline) throw new ShadowGitLockError(file, holders, waitMs)
    await new Promise((r) => setTimeout(r, POLL_MS))
  }
}

/**
 * Removes every stale lock of the repository (its top level and `refs/`), as a repository is opened: a lock git left
 * on a ref that no later command happens to write would otherwise stay until one does. A lock a live git holds is
 * left alone (not waited for). Returns the locks removed; costs two directory reads when there is none.
 */
export async function healStaleLocks(gitDir: string): Promise<string[]> {
  const found: string[] = []
  const walk = (dir: string): void => {
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      // No such directory (a repository being created): nothing locked there.
      return
    }
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (dir !== gitDir || entry.name === 'refs') walk(join(dir, entry.name))
      } else if (entry.name.endsWith('.lock')) {
        found.push(join(dir, entry.name))
      }
    }
  }
  walk(gitDir)
  const removed: string[] = []
  for (const lock of found) {
    try {
      if ((await settleLock(lock, gitDir, 0)) === 'removed') removed.push(lock)
    } catch {
      // Held by a live git: the command that needs it waits for it then.
    }
  }
  return removed
}

/**
 * The live git processes working on `gitDir`, this process excluded; undefined when the processes cannot be listed.
 * A zombie (exited, not yet reaped) has no command line and holds nothing.
 */
export function gitProcessesOf(gitDir: string): LockHolder[] | undefined {
  const dirs = new Set([resolve(gitDir)])
  try {
    dirs.add(realpathSync(gitDir))
  } catch {
    // The repository's real path is only a second spelling to match; the one given is enough.
  }
  return procProcesses(dirs) ?? psProcesses(dirs)
}

function procProcesses(dirs: Set<string>): LockHolder[] | undefined {
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    // No /proc (not Linux): `ps` is asked instead.
    return undefined
  }
  const found: LockHolder[] = []
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue
    let argv: string[]
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    } catch {
      // The process ended while the list was read: it holds nothing.
      continue
    }
    if (!argv.length || !isGit(argv[0])) continue
    if (namesGitDir(argv, dirs) || environNames(pid, dirs)) found.push({ pid: Number(pid), command: commandOf(argv) })
  }
  return found
}

function psProcesses(dirs: Set<string>): LockHolder[] | undefined {
  let out: string
  try {
    out = execFileSync('ps', ['-axww', '-o', 'pid=,args='], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 })
  } catch {
    // Neither /proc nor ps: nothing can be said about the holder, so the lock is treated as held.
    return undefined
  }
  const found: LockHolder[] = []
  for (const line of out.split('\n')) {
    const match = /^\s*(\d+)\s+(.*)$/.exec(line)
    if (!match || Number(match[1]) === process.pid) continue
    const argv = match[2].split(/\s+/)
    if (!isGit(argv[0])) continue
    if ([...dirs].some((dir) => match[2].includes(`--git-dir ${dir}`) || match[2].includes(`--git-dir=${dir}`))) {
      found.push({ pid: Number(match[1]), command: commandOf(argv) })
    }
  }
  return found
}

function isGit(argv0: string): boolean {
  const name = basename(argv0)
  return name === 'git' || name.startsWith('git-')
}

function namesGitDir(argv: readonly string[], dirs: Set<string>): boolean {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--git-dir' && dirs.has(resolve(argv[i + 1] ?? ''))) return true
    if (argv[i].startsWith('--git-dir=') && dirs.has(resolve(argv[i].slice('--git-dir='.length)))) return true
  }
  return false
}

function environNames(pid: string, dirs: Set<string>): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .some((entry) => entry.startsWith('GIT_DIR=') && dirs.has(resolve(entry.slice('GIT_DIR='.length))))
  } catch {
    // Another user's process (or one that just ended): its environment cannot be read, and it cannot hold our lock.
    return false
  }
}

/** `git add` for a command line: the program and its subcommand, without the `-c` safety flags and paths. */
function commandOf(argv: readonly string[]): string {
  const words: string[] = [basename(argv[0])]
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '-c' || arg === '--git-dir' || arg === '--work-tree') {
      i++
      continue
    }
    if (arg.startsWith('-')) continue
    words.push(arg)
    break
  }
  return words.join(' ')
}

function statOf(file: string): Stats | undefined {
  try {
    return lstatSync(file)
  } catch {
    // No lock (any more).
    return undefined
  }
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.ctimeMs === b.ctimeMs && a.size === b.size
}

function inside(file: string, dir: string): boolean {
  const root = resolve(dir)
  return file.startsWith(root.endsWith(sep) ? root : root + sep)
}
