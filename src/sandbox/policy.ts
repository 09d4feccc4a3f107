import { z } from 'zod'

/**
 * The `sandbox` block of a settings file, as a user or a project writes it. Every key is optional; a layer that says
 * nothing about a key leaves it to the layers below.
 */
export const sandboxSettingsSchema = z
  .object({
    enabled: z.boolean().optional(),
    network: z.object({ allowedDomains: z.array(z.string()).optional() }).strict().optional(),
    filesystem: z
      .object({ allowWrite: z.array(z.string()).optional(), denyRead: z.array(z.string()).optional() })
      .strict()
      .optional(),
    excludedCommands: z.array(z.string()).optional(),
    allowUnsandboxed: z.boolean().optional(),
  })
  .strict()

export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>

/**
 * The sandbox a session runs under, after every layer. What holds: `allowedDomains` are lower-case, without a
 * trailing dot, each an exact name or `*.` plus a name; `allowWrite` and `denyRead` are as written (paths or globs,
 * `~` not yet expanded); nothing here came from a project file unless it narrowed what the user allowed.
 */
export interface SandboxPolicy {
  enabled: boolean
  allowedDomains: string[]
  allowWrite: string[]
  denyRead: string[]
  /** Commands (by first word) that run outside the sandbox, each only after the user says yes. */
  excludedCommands: string[]
  /** Whether a command that failed inside may be offered a run outside, which always asks. */
  allowUnsandboxed: boolean
}

/** What a project file asked for and did not get, one sentence fragment each, for the start-up notice. */
export interface ResolvedSandbox {
  policy: SandboxPolicy
  ignored: string[]
}

export interface SandboxLayers {
  /** The user's own settings (`$REIN_HOME/settings.json`): may set anything. */
  user?: unknown
  /** The workspace's settings: may only narrow what `user` allows. */
  project?: unknown
  /** `--sandbox` (true) or `--no-sandbox` (false): the person at the keyboard, above every file. */
  flag?: boolean
}

export const DEFAULT_POLICY: SandboxPolicy = {
  enabled: false,
  allowedDomains: [],
  allowWrite: [],
  denyRead: [],
  excludedCommands: [],
  allowUnsandboxed: true,
}

/** Thrown for a `sandbox` block that is not the documented shape; its message is one sentence naming the file. */
export class SandboxSettingsError extends Error {}

function parseLayer(raw: unknown, where: string): SandboxSettings {
  if (raw === undefined || raw === null) return {}
  const parsed = sandboxSettingsSchema.safeParse(raw)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]!
  const at = issue.path.length ? `sandbox.${issue.path.join('.')}` : 'sandbox'
  throw new SandboxSettingsError(`${where}: ${at} is invalid (${issue.message}); see docs/sandbox.md for the shape.`)
}

/**
 * The effective policy. A project layer narrows only: it may turn the sandbox on but never off, drop allowed domains,
 * write directories and excluded commands but never add one, add read denials, and turn `allowUnsandboxed` off but
 * never on. Everything else it asked for is listed in `ignored`.
 */
export function resolveSandbox(layers: SandboxLayers, where = { user: 'user settings', project: 'project settings' }): ResolvedSandbox {
  const user = parseLayer(layers.user, where.user)
  const project = parseLayer(layers.project, where.project)
  const ignored: string[] = []

  const userDomains = (user.network?.allowedDomains ?? []).map((d) => normalizeDomainRule(d, where.user))
  const userWrite = user.filesystem?.allowWrite ?? []
  const userExcluded = user.excludedCommands ?? []

  let enabled = user.enabled ?? DEFAULT_POLICY.enabled
  if (project.enabled === true) enabled = true
  if (project.enabled === false && enabled) ignored.push('sandbox.enabled: false (a project file may not turn the sandbox off)')
  if (layers.flag !== undefined) enabled = layers.flag

  const allowedDomains = narrow(
    userDomains,
    project.network?.allowedDomains?.map((d) => normalizeDomainRule(d, where.project)),
    'sandbox.network.allowedDomains',
    'add a domain',
    ignored,
  )
  const allowWrite = narrow(userWrite, project.filesystem?.allowWrite, 'sandbox.filesystem.allowWrite', 'add a writable path', ignored)
  const excludedCommands = narrow(userExcluded, project.excludedCommands, 'sandbox.excludedCommands', 'exclude a command', ignored)
  const denyRead = [...new Set([...(user.filesystem?.denyRead ?? []), ...(project.filesystem?.denyRead ?? [])])]

  let allowUnsandboxed = user.allowUnsandboxed ?? DEFAULT_POLICY.allowUnsandboxed
  if (project.allowUnsandboxed === false) allowUnsandboxed = false
  if (project.allowUnsandboxed === true && !allowUnsandboxed) {
    ignored.push('sandbox.allowUnsandboxed: true (a project file may not allow running outside the sandbox)')
  }

  return { policy: { enabled, allowedDomains, allowWrite, denyRead, excludedCommands, allowUnsandboxed }, ignored }
}

/** A project list, when given, replaces the user's by its intersection with it; what it added is ignored. */
function narrow(user: string[], project: string[] | undefined, key: string, verb: string, ignored: string[]): string[] {
  if (project === undefined) return [...new Set(user)]
  const allowed = new Set(user)
  const extra = project.filter((entry) => !allowed.has(entry))
  if (extra.length) ignored.push(`${key}: ${extra.join(', ')} (a project file may not ${verb})`)
  return [...new Set(project.filter((entry) => allowed.has(entry)))]
}

/**
 * A domain rule in its one canonical form: lower case, no trailing dot, either a plain host name or `*.` and a host
 * name with at least two labels. IP literals, ports, paths, user names and bare `*` are refused in one sentence.
 */
export function normalizeDomainRule(rule: string, where: string): string {
  const lower = rule.trim().toLowerCase().replace(/\.$/, '')
  const wildcard = lower.startsWith('*.')
  const name = wildcard ? lower.slice(2) : lower
  const bad = (why: string) => new SandboxSettingsError(`${where}: sandbox.network.allowedDomains entry "${rule}" ${why}.`)
  if (!isHostName(name)) throw bad('is not a host name (write example.com or *.example.com)')
  if (/^[\d.]+$/.test(name)) throw bad('is an IP address; the sandbox allows names only')
  if (wildcard && !name.includes('.')) throw bad('is a wildcard over a top-level domain')
  return wildcard ? `*.${name}` : name
}

/** RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens, 1–63 characters each. */
export function isHostName(name: string): boolean {
  if (name.length === 0 || name.length > 253) return false
  return name.split('.').every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label))
}

/**
 * Whether `command` names an excluded command (`sandbox.excludedCommands`) as the first word of any of its parts.
 * The split is textual; a part it fails to see runs inside the sandbox, which is the safe direction.
 */
export function namesExcludedCommand(command: string, excluded: readonly string[]): boolean {
  if (excluded.length === 0) return false
  return command
    .split(/&&|\|\||[;|&\n()]/)
    .map((part) => part.trim().replace(/^(?:\w+=\S*\s+)*/, '').split(/\s+/)[0] ?? '')
    .some((word) => excluded.includes(word) || excluded.includes(word.split('/').pop() ?? ''))
}
