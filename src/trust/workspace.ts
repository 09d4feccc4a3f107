import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import { type Grant, type GrantReport, grantsHash } from './grant.js'
import { storeTrustRecord, trustRecord } from './store.js'

/**
 * The trust decision for one workspace, made once per start. `trusted` is true when the user trusted exactly these
 * grants (`rein trust`, the terminal UI's question) or this run was started with `--trust-project`; only then do
 * the workspace's allow rules, default mode, extra directories, hooks and MCP servers take effect.
 */
export interface WorkspaceTrust {
  /** The workspace's real path: the key trust is stored under. */
  dir: string
  grants: Grant[]
  trusted: boolean
  /** `changed`: trusted once, but a grant was edited or added since; `new`: never trusted. */
  status: 'trusted' | 'once' | 'new' | 'changed'
}

export interface TrustOptions {
  cwd: string
  home: string
  /** Where `~/.claude` and `~/.codex` are; `os.homedir()` when absent. */
  userHome?: string
  /** `--trust-project`: trust the workspace for this run only, recording nothing. */
  once?: boolean
  /** What the workspace defines that needs trust, as its loaders report it (src/runtime/workspace-trust.ts gathers them). */
  report: GrantReport
}

export function workspaceDir(cwd: string): string {
  try {
    return realpathSync(resolve(cwd))
  } catch {
    // A directory that cannot be resolved is judged by the path as given; nothing can be trusted there anyway.
    return resolve(cwd)
  }
}

export function workspaceTrust(options: TrustOptions): WorkspaceTrust {
  const dir = workspaceDir(options.cwd)
  const grants = options.report({ cwd: dir, home: options.home, userHome: options.userHome ?? homedir() })
  const record = trustRecord(options.home, dir)
  if (record && record.hash === grantsHash(grants)) return { dir, grants, trusted: true, status: 'trusted' }
  if (options.once) return { dir, grants, trusted: true, status: 'once' }
  return { dir, grants, trusted: false, status: record ? 'changed' : 'new' }
}

/**
 * Records trust in the workspace (`rein trust`, the terminal UI's "yes"). `shown` is what the person was shown and
 * agreed to; the record keeps its hash, so a file edited while they read it is asked about again. Without it, what
 * the workspace defines now is recorded (the caller prints that list).
 */
export function trustWorkspace(options: { cwd: string; home: string; userHome?: string; shown?: Grant[]; report: GrantReport }): WorkspaceTrust {
  const dir = workspaceDir(options.cwd)
  const grants = options.shown ?? options.report({ cwd: dir, home: options.home, userHome: options.userHome ?? homedir() })
  storeTrustRecord(options.home, dir, { hash: grantsHash(grants), trustedAt: new Date().toISOString(), grants: grants.map(describeGrant) })
  return { dir, grants, trusted: true, status: 'trusted' }
}

/** One grant as a person reads it: what it is and which file says so. */
export function describeGrant(grant: Grant): string {
  return `${grant.label} (${grant.file})`
}

/**
 * The one notice a front end that cannot ask shows when an untrusted workspace defined something: what was left
 * inert and the command that trusts it. `ignored` is what actually did not take effect (a hook or server the user
 * trusted on its own still runs). Undefined when nothing was ignored.
 */
export function untrustedNotice(trust: WorkspaceTrust, ignored: readonly Grant[]): string | undefined {
  if (trust.trusted || ignored.length === 0) return undefined
  const why = trust.status === 'changed' ? 'changed since you trusted it, so it' : 'is not trusted, so it'
  const shown = ignored.slice(0, 6).map((grant) => grant.label)
  const more = ignored.length > shown.length ? ` and ${ignored.length - shown.length} more` : ''
  return `This workspace ${why} ran without what it defines: ${shown.join('; ')}${more}. Review and trust it with \`rein trust ${quoteArg(trust.dir)}\`.`
}

function quoteArg(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`
}

/**
 * The grants that did not take effect in an untrusted workspace: every permission grant, the hooks and MCP servers
 * that were not trusted one by one (`rein hooks trust`, `rein mcp trust`), and the limits that were kept from rising.
 */
export function ignoredGrants(
  trust: WorkspaceTrust,
  skipped: {
    hookHashes: readonly string[]
    servers: readonly { name: string; file: string }[]
    /** The limits loadSettings kept from rising (a project may lower one below the user's own without trust). */
    limits?: readonly { name: string; file: string }[]
  },
): Grant[] {
  if (trust.trusted) return []
  const hooks = new Set(skipped.hookHashes)
  const servers = new Set(skipped.servers.map((server) => `${server.file}\0${server.name}`))
  const limits = new Set((skipped.limits ?? []).map((limit) => `${limit.file}\0${limit.name}`))
  return trust.grants.filter((grant) => {
    if (grant.kind === 'hook') return hooks.has(grant.value as string)
    if (grant.kind === 'limit') return limits.has(`${grant.file}\0${(grant.value as { name: string }).name}`)
    if (grant.kind === 'mcpServer') return servers.has(`${grant.file}\0${(grant.value as { name: string }).name}`)
    return true
  })
}

/**
 * Runs `change` (a write the user asked for, such as "allow always" adding a rule to `.rein/settings.local.json`)
 * and, when the workspace was trusted exactly before it, records trust in the result: the user's own edit through
 * Rein must not make their trusted workspace ask again. An untrusted workspace stays untrusted.
 */
export function keepingTrust(options: { cwd: string; home: string; userHome?: string; report: GrantReport }, change: () => void): void {
  const before = workspaceTrust(options)
  change()
  if (before.status === 'trusted') trustWorkspace(options)
}
