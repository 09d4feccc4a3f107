import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readlinkSync } from 'node:fs'
import { PROXY_SOCKET_INSIDE } from './bwrap-args.js'
import { LISTENER_SOURCE, PROXY_PORT } from './forwarder.js'

/**
 * One network namespace for a session's sandboxed commands, held by a long-lived bwrap whose only process is the
 * proxy forwarder (listening on 127.0.0.1:`PROXY_PORT` there). Each command enters it with
 * `nsenter --user --net --preserve-credentials -t <pid>` before its own bwrap, so the forwarder's Node start-up is
 * paid once per session instead of once per command (docs/sandbox.md, "Cost").
 *
 * What holds:
 * - the holder has its own user, network, PID and IPC namespaces and dies with Rein (`--die-with-parent`, and it
 *   exits when its stdin closes); it sees the host read-only, Rein's proxy socket at `PROXY_SOCKET_INSIDE`, nothing else;
 * - it mounts no `/dev` of its own: with `--dev`, an unprivileged bwrap nests a second user namespace, and the network
 *   namespace would then belong to one that `nsenter` cannot enter without privileges. Without it, the network
 *   namespace belongs to the holder's only user namespace, which the user's own processes may enter;
 * - `nsenter` execs the command's bwrap in place (no fork: no PID namespace is entered), so the command's process is
 *   the one Rein started, and killing its group kills the sandbox as before.
 */
export class SharedNetwork {
  private constructor(
    private readonly holder: ChildProcess,
    /** The holder's first process inside its namespaces, on the host's PID numbering. */
    readonly pid: number,
    /** Its user and network namespaces as `/proc/<pid>/ns/*` name them (`net:[4026532180]`), read once it listened. */
    private readonly namespaces: string,
  ) {}

  /**
   * Starts the holder, or resolves with the reason it cannot (no `nsenter` here, or the holder did not come up): the
   * caller then starts a forwarder inside each command, as before, and tells the user once.
   */
  static async start(proxySocket: string): Promise<SharedNetwork | { reason: string }> {
    if (!hasNsenter()) return { reason: 'nsenter (util-linux) is not installed' }
    const args = [
      '--unshare-user', '--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--new-session', '--cap-drop', 'ALL',
      '--ro-bind', '/', '/', '--proc', '/proc', '--tmpfs', '/run', '--bind', proxySocket, PROXY_SOCKET_INSIDE,
      '--info-fd', '3', '--', process.execPath, '-e', LISTENER_SOURCE, PROXY_SOCKET_INSIDE, String(PROXY_PORT),
    ]
    const holder = spawn('bwrap', args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] })
    let stderr = ''
    holder.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-500)))
    let timer: NodeJS.Timeout | undefined
    const pid = await new Promise<number | undefined>((resolve) => {
      let info = ''
      let childPid: number | undefined
      let listening = false
      const done = () => {
        if (childPid !== undefined && listening) resolve(childPid)
      }
      // A holder that neither comes up nor fails (a hung bwrap) must not hold the session's start: give up on it.
      timer = setTimeout(() => resolve(undefined), START_TIMEOUT_MS)
      holder.once('error', () => resolve(undefined))
      holder.once('exit', () => resolve(undefined))
      holder.stdio[3]?.on('data', (chunk: Buffer) => {
        info += chunk.toString('utf8')
        const found = /"child-pid":\s*(\d+)/.exec(info)
        if (found) childPid = Number(found[1])
        done()
      })
      holder.stdout?.on('data', (chunk: Buffer) => {
        if (chunk.toString('utf8').includes('listening')) listening = true
        done()
      })
    })
    clearTimeout(timer)
    if (pid === undefined) {
      holder.kill('SIGKILL')
      const why = stderr.trim().split('\n').at(-1)
      return { reason: `its network namespace did not start${why ? ` (${why})` : ''}` }
    }
    // Rein does not wait for the holder; it ends with Rein or with close().
    holder.unref()
    for (const stream of holder.stdio) (stream as { unref?: () => void } | null)?.unref?.()
    const namespaces = namespacesOf(pid)
    if (namespaces === undefined) {
      holder.kill('SIGKILL')
      return { reason: 'its network namespace could not be read' }
    }
    return new SharedNetwork(holder, pid, namespaces)
  }

  /**
   * Whether commands can still enter the namespace: the holder runs, and its PID still names the same namespaces.
   * The second check is why a command can never enter another process's namespaces through a reused PID (the
   * remaining window, between this check and nsenter's open, would need the PID space to wrap around in it).
   */
  alive(): boolean {
    return this.holder.exitCode === null && this.holder.signalCode === null && namespacesOf(this.pid) === this.namespaces
  }

  /** The program and arguments that run `bwrapArgs` inside the namespace. */
  enter(bwrapArgs: string[]): { file: string; args: string[] } {
    return { file: 'nsenter', args: ['--user', '--net', '--preserve-credentials', '-t', String(this.pid), '--', 'bwrap', ...bwrapArgs] }
  }

  close(): void {
    this.holder.stdin?.end()
    this.holder.kill('SIGKILL')
  }
}

/** How long the holder may take to listen before each command gets a forwarder of its own instead. */
const START_TIMEOUT_MS = 10_000

let nsenter: boolean | undefined

function namespacesOf(pid: number): string | undefined {
  try {
    return `${readlinkSync(`/proc/${pid}/ns/user`)} ${readlinkSync(`/proc/${pid}/ns/net`)}`
  } catch {
    return undefined // The process is gone (or not ours to read): its namespaces cannot be entered.
  }
}

function hasNsenter(): boolean {
  nsenter ??= spawnSync('nsenter', ['--version'], { stdio: 'ignore' }).status === 0
  return nsenter
}
