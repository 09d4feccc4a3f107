import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { bwrapArguments, PROXY_SOCKET_INSIDE, type SandboxPlaces } from './bwrap-args.js'
import { resolveDenials } from './deny-paths.js'
import { FORWARDER_SOURCE, HELD_NODE_OPTIONS, PROXY_PORT } from './forwarder.js'
import { namesExcludedCommand, type SandboxPolicy } from './policy.js'
import { probeSandbox } from './probe.js'
import { SOCKET_ENV } from './protected-paths.js'
import type { Refusal } from './proxy/hosts.js'
import { SandboxProxy, type ProxyGate, type ProxyOptions } from './proxy/proxy.js'
import { seccompFilter } from './seccomp/filter.js'
import { guardGitRedirects, type GitRedirectGuard } from './git-redirects.js'
import { SharedNetwork } from './shared-network.js'
import { RUN_OUTSIDE_OFFER } from './result-mark.js'
import { violationNote } from './violations.js'

export interface SandboxOptions {
  policy: SandboxPolicy
  workspace: string
  reinHome: string
  home?: string
  /** Where the private `/tmp`, the seccomp program and the proxy socket live; a fresh directory under the OS temp by default, removed on close. */
  stateDir?: string
  /**
   * `false`: a forwarder inside each command, as on a machine without `nsenter`, instead of the session's shared
   * network namespace (the bench and the tests compare both). Default true.
   */
  sharedNetwork?: boolean
  /** Proxy hooks (tests resolve their own names); the allowed domains always come from the policy. */
  proxy?: Omit<ProxyOptions, 'allowedDomains'>
}

export type SandboxedProcess = ChildProcessByStdio<null, Readable, Readable>

/** One started command and what to ask when it is done. */
export interface SandboxedCommand {
  child: SandboxedProcess
  /** The proxy's refusals during this command, and the note to append to its output (or undefined). */
  report(output: string): { refusals: Refusal[]; note?: string }
}

/** Thrown when the sandbox cannot start; the message is the one sentence the user reads. */
export class SandboxUnavailable extends Error {}

/**
 * A session's sandbox: the resolved policy turned into places, a seccomp program and (when any domain is allowed) a
 * proxy gate, opened once. Every command it starts runs under bwrap with an argument list, never a shell string.
 * With domains allowed, `127.0.0.1:3128` inside reaches the proxy: commands share one network namespace where a
 * forwarder listens (shared-network.ts), or, without `nsenter`, each runs as the child of a forwarder of its own.
 */
export class Sandbox {
  private constructor(
    readonly policy: SandboxPolicy,
    readonly places: SandboxPlaces,
    private readonly stateDir: string,
    private readonly ownsStateDir: boolean,
    private readonly seccompFile: string,
    private readonly proxy: SandboxProxy | undefined,
    private readonly gate: ProxyGate | undefined,
    /** Notes for the start-up notice (globs cut short, no shared network namespace). */
    readonly notes: string[],
    private readonly gitRedirects: GitRedirectGuard,
    /** The session's network namespace with the forwarder in it, when domains are allowed and `nsenter` is here. */
    private readonly network: SharedNetwork | undefined,
  ) {}

  static async open(options: SandboxOptions): Promise<Sandbox> {
    const probe = probeSandbox()
    if (!probe.ok) throw new SandboxUnavailable(probe.reason)
    const filter = seccompFilter()
    if (!filter) throw new SandboxUnavailable(`The sandbox's seccomp filter knows x86_64 and aarch64 only, not ${process.arch}.`)
    const home = options.home ?? homedir()
    const ownsStateDir = options.stateDir === undefined
    const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), 'sandbox-'))
    const sessionTmp = join(stateDir, 'tmp')
    mkdirSync(sessionTmp, { recursive: true, mode: 0o700 })
    const seccompFile = join(stateDir, 'seccomp.bpf')
    writeFileSync(seccompFile, filter)
    const denials = resolveDenials(options.policy.denyRead, options.workspace, home)
    const agentSockets = agentSocketPaths(process.env)
    const places: SandboxPlaces = { workspace: options.workspace, home, reinHome: options.reinHome, sessionTmp, agentSockets, deniedPaths: denials.paths }
    let proxy: SandboxProxy | undefined
    let gate: ProxyGate | undefined
    if (options.policy.allowedDomains.length) {
      proxy = new SandboxProxy({ ...options.proxy, allowedDomains: options.policy.allowedDomains })
      gate = await proxy.openGate(join(stateDir, 'proxy.sock'))
    }
    const shared = gate && options.sharedNetwork !== false ? await SharedNetwork.start(gate.socketPath) : undefined
    const network = shared instanceof SharedNetwork ? shared : undefined
    const notes =
      shared && !(shared instanceof SharedNetwork)
        ? [...denials.notes, `${shared.reason}, so each command starts a proxy forwarder of its own (about 100 ms more per command)`]
        : denials.notes
    return new Sandbox(options.policy, places, stateDir, ownsStateDir, seccompFile, proxy, gate, notes, guardGitRedirects(options.workspace), network)
  }

  /** Commands that failed with a sandbox note, which the permission policy may offer to run once outside. */
  private readonly failedInside = new Set<string>()
  /** Commands the user allowed to run once outside; the next start of each takes its release. */
  private readonly releasedOnce = new Set<string>()

  /** Whether `command` runs inside this sandbox: not one of `sandbox.excludedCommands`, not released to run outside. */
  confines(command: string): boolean {
    return !this.releasedOnce.has(command) && !namesExcludedCommand(command, this.policy.excludedCommands)
  }

  /** Whether `command` failed inside and `allowUnsandboxed` lets the user be asked to run it outside. */
  offersRunOutside(command: string): boolean {
    return this.policy.allowUnsandboxed && this.failedInside.has(command)
  }

  /** The user said yes: the next start of `command` runs outside the sandbox, once. */
  releaseOnce(command: string): void {
    if (this.offersRunOutside(command)) this.releasedOnce.add(command)
  }

  /** For the process starter: whether this start of `command` goes inside; takes a release if there is one. */
  enter(command: string): boolean {
    if (this.releasedOnce.delete(command)) {
      this.failedInside.delete(command)
      return false
    }
    return this.confines(command)
  }

  /**
   * The program and arguments a command runs with: bwrap, or (in the session's shared network namespace) nsenter
   * then bwrap. Without a shared namespace but with domains allowed, a forwarder inside runs bash as its child.
   */
  invocation(command: string, cwd: string, shared = this.network?.alive() === true): { file: string; args: string[] } {
    if (shared && this.network) {
      return this.network.enter([...bwrapArguments(this.policy, this.places, { seccompFd: 3, cwd, sharedNetwork: true }), '--', 'bash', '-c', command])
    }
    const args = bwrapArguments(this.policy, this.places, { seccompFd: 3, cwd, ...(this.gate ? { proxySocket: this.gate.socketPath } : {}) })
    const inner = this.gate
      ? [process.execPath, '-e', FORWARDER_SOURCE, PROXY_SOCKET_INSIDE, String(PROXY_PORT), command]
      : ['bash', '-c', command]
    return { file: 'bwrap', args: [...args, '--', ...inner] }
  }

  /** The environment inside: `env` without agent sockets, with the private `/tmp` and (with a proxy) the proxy variables. */
  environment(env: NodeJS.ProcessEnv, shared = this.network?.alive() === true): NodeJS.ProcessEnv {
    const inside: NodeJS.ProcessEnv = { ...env, TMPDIR: '/tmp', REIN_SANDBOX: '1' }
    for (const name of SOCKET_ENV) delete inside[name]
    if (this.gate) {
      const url = `http://127.0.0.1:${PROXY_PORT}`
      for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy']) inside[name] = url
      inside.NO_PROXY = inside.no_proxy = 'localhost,127.0.0.1,::1'
      if (!shared) {
        if (inside.NODE_OPTIONS !== undefined) inside[HELD_NODE_OPTIONS] = inside.NODE_OPTIONS
        delete inside.NODE_OPTIONS
      }
    }
    return inside
  }

  /**
   * Starts `command` confined, as the leader of its own process group (`detached`), stdin closed, stdout and stderr
   * piped: the same contract as an unconfined command, so the caller's kill and timeout logic is unchanged.
   * Killing bwrap ends every process inside (its PID namespace dies with it).
   */
  spawn(command: string, options: { cwd: string; env: NodeJS.ProcessEnv }): SandboxedCommand {
    const swept = this.gitRedirects.sweep()
    const fd = openSync(this.seccompFile, 'r')
    let child: SandboxedProcess
    try {
      // One decision per command: the invocation and its environment agree on whether a forwarder runs inside.
      const shared = this.network?.alive() === true
      const { file, args } = this.invocation(command, options.cwd, shared)
      child = spawn(file, args, {
        cwd: options.cwd,
        env: this.environment(options.env, shared),
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe', fd],
        // Node types a child with a numeric stdio entry loosely; stdin is ignored and stdout/stderr are pipes, as declared.
      }) as unknown as SandboxedProcess
    } finally {
      closeSync(fd)
    }
    const mark = this.gate?.refusals.length ?? 0
    return {
      child,
      report: (output) => {
        const refusals = this.gate ? this.gate.refusals.slice(mark) : []
        swept.push(...this.gitRedirects.sweep())
        const found = violationNote(output, this.maskedPaths(), refusals, this.gate !== undefined)
        const removal = swept.length
          ? `The sandbox removed ${swept.join(', ')}, which would make git run hooks and read config from elsewhere.`
          : undefined
        let note = removal ? (found ? `${found} ${removal}` : `[sandbox] ${removal}`) : found
        if (found && this.policy.allowUnsandboxed) {
          this.failedInside.add(command)
          note += ` ${RUN_OUTSIDE_OFFER}`
        }
        return { refusals, ...(note ? { note } : {}) }
      },
    }
  }

  /** Paths the command cannot see: the masks of bwrapArguments, for the violation note. */
  maskedPaths(): string[] {
    const args = bwrapArguments(this.policy, this.places, { seccompFd: 3, cwd: this.places.workspace })
    const masked: string[] = []
    for (let i = 0; i < args.length; i++) {
      if (args[i] === '--remount-ro') masked.push(args[i + 1]!)
      if (args[i] === '--ro-bind' && args[i + 1] === '/dev/null') masked.push(args[i + 2]!)
    }
    return masked
  }

  async close(): Promise<void> {
    this.gitRedirects.sweep()
    this.network?.close()
    await this.proxy?.close()
    if (this.ownsStateDir) rmSync(this.stateDir, { recursive: true, force: true })
  }
}

/** Unix socket paths named by the environment: `SSH_AUTH_SOCK`, and `unix:path=` in a D-Bus or Docker address. */
function agentSocketPaths(env: NodeJS.ProcessEnv): string[] {
  const paths: string[] = []
  if (env.SSH_AUTH_SOCK) paths.push(env.SSH_AUTH_SOCK)
  const bus = env.DBUS_SESSION_BUS_ADDRESS?.match(/unix:path=([^,;]+)/)?.[1]
  if (bus) paths.push(bus)
  const docker = env.DOCKER_HOST?.match(/^unix:\/\/(.+)$/)?.[1]
  if (docker) paths.push(docker)
  return paths
}
