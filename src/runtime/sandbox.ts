import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { readSettingsFile, settingsFiles, type Settings } from '../config/settings.js'
import { parseRule } from '../permissions/rules.js'
import { resolveSandbox, type ResolvedSandbox } from '../sandbox/policy.js'
import { Sandbox, SandboxUnavailable } from '../sandbox/sandbox.js'

export interface SessionSandboxOptions {
  cwd: string
  /** `$REIN_HOME`: its `settings.json` is the user layer, and it is masked inside. */
  home: string
  env: NodeJS.ProcessEnv
  /** The merged settings, whose `Read` deny rules the sandbox masks too. */
  settings: Settings
  /** `--sandbox` / `--no-sandbox`. */
  flag?: boolean
  report: (message: string) => void
}

/**
 * The session's sandbox, or undefined when it is off or cannot start (docs/sandbox.md). The `sandbox` block is read
 * per layer, since a project layer may only narrow the user's (src/sandbox/policy.ts); what it asked for and did not
 * get, and a sandbox that cannot start, each reach the user as one sentence. A sandbox that cannot start leaves
 * commands to the permission rules as without one: nothing is auto-allowed, nothing runs confined in name only.
 */
export async function openSessionSandbox(options: SessionSandboxOptions): Promise<Sandbox | undefined> {
  const resolved = resolveSessionSandbox(options)
  if (resolved.ignored.length) options.report(ignoredNotice(resolved.ignored))
  if (!resolved.policy.enabled) return undefined
  try {
    const sandbox = await Sandbox.open({ policy: resolved.policy, workspace: options.cwd, reinHome: options.home, home: options.env.HOME ?? homedir() })
    sandbox.notes.forEach((note) => options.report(`The sandbox: ${note}.`))
    return sandbox
  } catch (error) {
    if (!(error instanceof SandboxUnavailable)) throw error
    options.report(`${error.message} Commands will ask for permission as without a sandbox.`)
    return undefined
  }
}

/** The sentence that lists what project files asked of the sandbox and did not get. */
export function ignoredNotice(ignored: readonly string[]): string {
  return `The sandbox ignored what a project file asked for: ${ignored.join('; ')}.`
}

/**
 * The effective policy for this workspace, without starting anything: the user layer, each project layer narrowing
 * it in turn, the flag over all, and the `Read` deny rules of the merged settings added to `denyRead`.
 */
export function resolveSessionSandbox(options: Pick<SessionSandboxOptions, 'cwd' | 'home' | 'settings' | 'flag'>): ResolvedSandbox {
  const [userFile, ...projectFiles] = settingsFiles(options.cwd, options.home)
  const layer = (file: string | undefined) => (file && existsSync(file) ? readSettingsFile(file).sandbox : undefined)
  const flag = options.flag !== undefined ? { flag: options.flag } : {}
  let resolved: ResolvedSandbox = resolveSandbox({ user: layer(userFile), ...flag }, { user: `Settings file ${userFile}`, project: '' })
  for (const file of projectFiles) {
    const project = layer(file)
    if (project === undefined) continue
    const next = resolveSandbox({ user: toSettings(resolved), project, ...flag }, { user: `Settings file ${userFile}`, project: `Settings file ${file}` })
    resolved = { policy: next.policy, ignored: [...resolved.ignored, ...next.ignored] }
  }
  const policy = { ...resolved.policy, denyRead: [...new Set([...resolved.policy.denyRead, ...readDenyPatterns(options.settings)])] }
  return { policy, ignored: resolved.ignored }
}

/** A resolved policy written back as a user layer, so the next project layer narrows what is already narrowed. */
function toSettings({ policy }: ResolvedSandbox): unknown {
  return {
    enabled: policy.enabled,
    network: { allowedDomains: policy.allowedDomains },
    filesystem: { allowWrite: policy.allowWrite, denyRead: policy.denyRead },
    excludedCommands: policy.excludedCommands,
    allowUnsandboxed: policy.allowUnsandboxed,
  }
}

/** The path patterns of `Read(…)` deny rules, in the sandbox's terms: a pattern without `/` matches at any depth. */
function readDenyPatterns(settings: Settings): string[] {
  const patterns: string[] = []
  for (const text of settings.permissions?.deny ?? []) {
    const rule = parseRule(text)
    if ('error' in rule || rule.tool !== 'Read' || !rule.pattern) continue
    patterns.push(rule.pattern.includes('/') ? rule.pattern : `**/${rule.pattern}`)
  }
  return patterns
}
