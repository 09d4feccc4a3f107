import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { dirname, join, resolve, sep } from 'node:path'
import { absoluteRule } from './deny-paths.js'
import type { SandboxPolicy } from './policy.js'
import { HOME_CREDENTIAL_STORES, HOST_SOCKETS, WORKSPACE_READ_ONLY } from './protected-paths.js'

/** Where things are on the host, all absolute. */
export interface SandboxPlaces {
  workspace: string
  home: string
  reinHome: string
  /** The private per-session directory that becomes `/tmp` inside. */
  sessionTmp: string
  /** Socket paths named by the environment (SSH_AUTH_SOCK, …), hidden inside. */
  agentSockets: string[]
  /** Real paths of every `Read` deny rule (resolveDenials). */
  deniedPaths: string[]
}

/** The path inside the sandbox at which Rein's proxy socket appears. */
export const PROXY_SOCKET_INSIDE = '/run/rein/proxy.sock'

/**
 * The bwrap arguments up to and excluding `--`: namespaces, privileges, then mounts in the order bwrap applies them,
 * each later mount over the earlier ones. What holds:
 * - new user, PID, IPC, network (or the session's shared one), UTS and cgroup namespaces; all capabilities dropped; a new session (no TIOCSTI
 *   into Rein's terminal); the sandbox dies with its bwrap parent; seccomp from fd `seccompFd`;
 * - `/` read-only; a fresh `/dev` and `/proc` (only the sandbox's own processes are visible); `/run` an empty tmpfs
 *   (user runtime sockets, D-Bus, Docker); `/tmp` the private session directory;
 * - writable: the workspace and the existing `allowWrite` paths, then the workspace's config files read-only again;
 * - masked last, so they win over everything above: credential stores, `$REIN_HOME`, agent sockets, denied paths.
 */
export function bwrapArguments(
  policy: SandboxPolicy,
  places: SandboxPlaces,
  options: { seccompFd: number; proxySocket?: string; cwd: string; /** Stay in the session's network namespace (shared-network.ts) instead of a new one. */ sharedNetwork?: boolean },
): string[] {
  const args = [
    '--unshare-user', '--unshare-pid', '--unshare-ipc', ...(options.sharedNetwork ? [] : ['--unshare-net']), '--unshare-uts', '--unshare-cgroup-try',
    '--die-with-parent', '--new-session', '--cap-drop', 'ALL',
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/run',
  ]
  for (const socket of HOST_SOCKETS) if (existsQuietly(socket) && !socket.startsWith('/tmp/')) args.push(...maskArgs(socket))
  args.push('--bind', places.sessionTmp, '/tmp')
  if (options.proxySocket) args.push('--bind', options.proxySocket, PROXY_SOCKET_INSIDE)

  const workspace = realpathSync(places.workspace)
  args.push('--bind', workspace, workspace)
  for (const rule of policy.allowWrite) {
    const real = realOrUndefined(absoluteRule(rule, workspace, places.home))
    if (real && real !== sep) args.push('--bind', real, real)
  }
  // A linked worktree's `.git` is a file naming a git directory elsewhere: commits write there, so it is writable
  // too, and its hooks and config are as read-only as the workspace's own.
  const gitDirs = linkedGitDirs(workspace)
  for (const dir of gitDirs) args.push('--bind', dir, dir)
  const readOnly = [...WORKSPACE_READ_ONLY, ...submoduleGitFiles(workspace), ...hooksPathOf(workspace)]
    .map((relative) => realOrUndefined(resolve(workspace, relative)))
    .filter((p) => p !== undefined)
  // A directory holding a mount can be renamed and rebuilt (`mv .git .git-old`, then a new `.git/hooks`); a mount
  // point cannot (EBUSY). So every directory between the workspace and a read-only path becomes a mount point too.
  const pinned = new Set<string>()
  for (const path of readOnly) {
    for (let dir = dirname(path); isWithin(dir, workspace) && dir !== workspace; dir = dirname(dir)) pinned.add(dir)
  }
  for (const dir of [...pinned].sort((a, b) => a.length - b.length)) args.push('--bind', dir, dir)
  for (const real of readOnly) args.push('--ro-bind', real, real)
  for (const dir of gitDirs) {
    for (const name of ['hooks', 'config', 'config.worktree']) {
      const real = realOrUndefined(join(dir, name))
      if (real) args.push('--ro-bind', real, real)
    }
  }

  const masked = new Set<string>()
  for (const relative of HOME_CREDENTIAL_STORES) addReal(masked, join(places.home, relative))
  addReal(masked, places.reinHome)
  for (const socket of places.agentSockets) addReal(masked, socket)
  for (const path of places.deniedPaths) masked.add(path)
  const applied: string[] = []
  for (const path of [...masked].sort()) {
    // A mask over the workspace itself (or above it) would hide the work; Rein's read rules still guard such paths.
    if (isWithin(workspace, path)) continue
    // Inside an already masked directory the path no longer exists, and the empty tmpfs hides it anyway.
    if (applied.some((outer) => isWithin(path, outer))) continue
    applied.push(path)
    args.push(...maskArgs(path))
  }
  args.push('--chdir', options.cwd, '--seccomp', String(options.seccompFd))
  return args
}

/**
 * The git directories of a linked worktree (`.git` is a file saying `gitdir: <dir>`): that directory and the common
 * directory its `commondir` names. Empty for an ordinary repository or none.
 */
export function linkedGitDirs(workspace: string): string[] {
  let text: string
  try {
    if (!statSync(join(workspace, '.git')).isFile()) return []
    text = readFileSync(join(workspace, '.git'), 'utf8')
  } catch {
    return [] // No .git: not a repository.
  }
  const gitdir = text.match(/^gitdir:\s*(.+)$/m)?.[1]?.trim()
  if (!gitdir) return []
  const own = realOrUndefined(resolve(workspace, gitdir))
  if (!own) return []
  const dirs = [own]
  try {
    const common = realOrUndefined(resolve(own, readFileSync(join(own, 'commondir'), 'utf8').trim()))
    if (common && common !== own) dirs.unshift(common)
  } catch {
    // No commondir: a plain separate git directory (`git init --separate-git-dir`).
  }
  return dirs
}

/**
 * The hooks directory `core.hooksPath` names in `.git/config` (Husky's `.husky`, for example), resolved from the
 * workspace as git does for a relative path. Read from the file's text; an `[include]`d file is not followed.
 */
function hooksPathOf(workspace: string): string[] {
  let text: string
  try {
    text = readFileSync(join(workspace, '.git/config'), 'utf8')
  } catch {
    return [] // No readable config: git uses .git/hooks, which is read-only already.
  }
  const value = text.match(/^\s*hookspath\s*=\s*"?([^"\n]+?)"?\s*$/im)?.[1]
  return value ? [value.startsWith('~/') ? join(process.env.HOME ?? '', value.slice(2)) : value] : []
}

/** The hooks and config of each submodule's git directory (`.git/modules/<name>/`), relative to the workspace. */
function submoduleGitFiles(workspace: string): string[] {
  let names: string[]
  try {
    names = readdirSync(join(workspace, '.git/modules'))
  } catch {
    return [] // No submodules.
  }
  return names.flatMap((name) => [`.git/modules/${name}/hooks`, `.git/modules/${name}/config`])
}

/** Directories become an empty read-only tmpfs; files, sockets and devices become `/dev/null`. */
function maskArgs(path: string): string[] {
  return statSync(path).isDirectory() ? ['--tmpfs', path, '--remount-ro', path] : ['--ro-bind', '/dev/null', path]
}

function addReal(set: Set<string>, path: string): void {
  const real = realOrUndefined(path)
  if (real) set.add(real)
}

function isWithin(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep)
}

function existsQuietly(path: string): boolean {
  try {
    lstatSync(path)
    return existsSync(path)
  } catch {
    return false // Not there: nothing to hide.
  }
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined // Does not exist: nothing to bind or mask.
  }
}
