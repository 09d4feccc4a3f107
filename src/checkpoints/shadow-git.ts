import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { gitEnv, safeGitArgs } from '../trust/git.js'
import { lockFileIn, settleLock, staleLockNotice } from './locks.js'

/** A git command stopped because the work it belonged to was abandoned (`ShadowGitOptions.signal`). */
export class ShadowGitAbandoned extends Error {
  override readonly name = 'ShadowGitAbandoned'
  constructor(readonly args: readonly string[]) {
    super(`the checkpoint work was abandoned before it finished${args.length ? ` (git ${args[0]} was stopped)` : ''}`)
  }
}

/** A git command that failed: the command line (without the safety flags) and git's own message. */
export class ShadowGitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    readonly exitCode: number | null,
  ) {
    super(`git ${args.join(' ')} failed (exit ${exitCode ?? 'signal'}): ${stderr.trim().split('\n').at(-1) ?? ''}`)
  }
}

export interface ShadowGitOptions {
  /** Rein's own repository (`$REIN_HOME/checkpoints/<workspace key>`). */
  gitDir: string
  /** The user's workspace; git reads and writes files there, never its `.git`. */
  workTree: string
  env?: NodeJS.ProcessEnv
  secretEnv?: readonly string[]
  /**
   * Told when a stale lock was removed (one sentence naming the file). A command that fails on a lock is run again
   * once the lock is settled (src/checkpoints/locks.ts): removed when no live git holds it, waited for when one does.
   */
  onNotice?: (message: string) => void
  /** How long to wait for a lock a live git holds (ms); `LOCK_WAIT_MS` by default. */
  lockWaitMs?: number
  /**
   * Abandons the work: a command running when it fires gets SIGTERM (git removes its lock files on that signal, so
   * the repository is left as before the command) and rejects with `ShadowGitAbandoned` once git has exited; a
   * command started after it fired rejects at once, without starting git.
   */
  signal?: AbortSignal
  /** The index file every command uses instead of the repository's own `index` (a private index: private-index.ts). */
  indexFile?: string
}

/** How many times one command is run again after settling a lock it failed on. */
const LOCK_RETRIES = 3

/**
 * Runs git against the shadow repository only. Every `GIT_*` variable the caller inherited is dropped (a
 * `GIT_DIR` or `GIT_INDEX_FILE` left by a hook would point git at the user's repository), global and system config
 * are not read (so no filter, hook or fsmonitor program the user configured can run), and `safeGitArgs` turns off
 * every setting that could start a program. Output is returned as a Buffer: paths are bytes, not text.
 */
export function shadowGit(options: ShadowGitOptions) {
  const { env, safe } = shadowGitInvocation(options)
  const prefix = [...safe, '--work-tree', options.workTree]

  const { signal } = options
  /** One run of `git <args>`: resolves stdout, rejects with a `ShadowGitError` (`ShadowGitAbandoned` once abandoned). */
  const once = (args: readonly string[], input?: Buffer | string, bare = false, indexFile?: string): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new ShadowGitAbandoned(args))
      const argv = [...(bare ? safe : prefix), ...args]
      const index = indexFile ?? options.indexFile
      const childEnv = index ? { ...env, GIT_INDEX_FILE: index } : env
      // No stdin pipe unless there is input: one handle fewer to set up and to wait for before 'close'.
      const child = spawn('git', argv, { cwd: options.workTree, env: childEnv, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] })
      const out: Buffer[] = []
      const err: Buffer[] = []
      const abandon = () => child.kill('SIGTERM')
      signal?.addEventListener('abort', abandon, { once: true })
      child.stdout?.on('data', (chunk: Buffer) => out.push(chunk))
      child.stderr?.on('data', (chunk: Buffer) => err.push(chunk))
      child.on('error', (error) => reject(new ShadowGitError(args, error.message, null)))
      child.on('close', (code) => {
        signal?.removeEventListener('abort', abandon)
        if (code === 0) resolve(Buffer.concat(out))
        else if (signal?.aborted) reject(new ShadowGitAbandoned(args))
        else reject(new ShadowGitError(args, Buffer.concat(err).toString(), code))
      })
      if (child.stdin) {
        // A git that exits before reading stdin closes the pipe; its exit code already reports what went wrong.
        child.stdin.on('error', () => {})
        child.stdin.end(input)
      }
    })

  /**
   * Runs `git <args>`, feeding `input` on stdin; resolves stdout, rejects with a `ShadowGitError`. `bare` runs
   * without the work tree (creating the repository). `indexFile` puts git on another index of the shadow repository
   * (one call only; `ShadowGitOptions.indexFile` binds every call). A command that fails because a lock exists
   * is run again once the lock is settled; a lock a live git still holds after the wait ends it with a
   * `ShadowGitLockError` naming the file and the process.
   */
  async function run(args: readonly string[], input?: Buffer | string, bare = false, indexFile?: string): Promise<Buffer> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await once(args, input, bare, indexFile)
      } catch (error) {
        const lock = error instanceof ShadowGitError && attempt < LOCK_RETRIES ? lockFileIn(error.stderr) : undefined
        if (!lock) throw error
        const settled = await settleLock(lock, options.gitDir, options.lockWaitMs)
        if (settled === 'foreign') throw error
        if (settled === 'removed') options.onNotice?.(staleLockNotice(lock))
      }
    }
  }

  /** Starts `git <args>` with the same environment and safety flags, for a caller that streams its output. */
  function start(args: readonly string[]): ChildProcessWithoutNullStreams {
    const childEnv = options.indexFile ? { ...env, GIT_INDEX_FILE: options.indexFile } : env
    return spawn('git', [...prefix, ...args], { cwd: options.workTree, env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] })
  }

  return Object.assign(run, { start })
}

export type ShadowGit = ReturnType<typeof shadowGit>

/**
 * The environment and leading arguments every shadow git call uses (without the work tree), for a caller that
 * must start git itself: retention's `git gc` runs detached, so a short Rein run never waits for it.
 */
export function shadowGitInvocation(options: Pick<ShadowGitOptions, 'gitDir' | 'env' | 'secretEnv'>): { env: NodeJS.ProcessEnv; safe: string[] } {
  const base = gitEnv(options.env ?? process.env, options.secretEnv)
  // GIT_OPTIONAL_LOCKS goes too: in Rein's own repository `status` should write back refreshed stat data, or every
  // later snapshot re-reads files whose timestamps looked racy.
  for (const name of Object.keys(base)) if (name.startsWith('GIT_')) delete base[name]
  const env: NodeJS.ProcessEnv = {
    ...base,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Rein',
    GIT_AUTHOR_EMAIL: 'checkpoints@rein.invalid',
    GIT_COMMITTER_NAME: 'Rein',
    GIT_COMMITTER_EMAIL: 'checkpoints@rein.invalid',
  }
  const safe = [...safeGitArgs(), '-c', 'core.autocrlf=false', '-c', 'core.symlinks=true', '--git-dir', options.gitDir]
  return { env, safe }
}
