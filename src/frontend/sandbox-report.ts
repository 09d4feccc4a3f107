import { homedir } from 'node:os'
import { loadSettings } from '../config/settings.js'
import { ignoredNotice, resolveSessionSandbox } from '../runtime/sandbox.js'
import type { SandboxPolicy } from '../sandbox/policy.js'
import { probeSandbox } from '../sandbox/probe.js'
import { workspaceTrust } from '../runtime/workspace-trust.js'

/** What `rein sandbox`, the terminal UI's `/sandbox` and ACP's `/sandbox` show: the resolved policy and this machine's state. */
export interface SandboxReport {
  policy: SandboxPolicy
  /** What project files asked of the sandbox and did not get, one phrase each. */
  ignored: string[]
  /** Whether bubblewrap can run here; `reason` says why not. */
  available: boolean
  reason?: string
  /** `--sandbox` (true) or `--no-sandbox` (false) of the running session, when one decided. */
  flag?: boolean
}

/**
 * The sandbox as a session in `cwd` would have it: every settings layer (a project layer only narrows), the flag
 * over all, and whether bubblewrap works here. Starts nothing. Throws an error whose message is one sentence when a
 * settings file is bad.
 */
export function readSandboxReport(options: { cwd: string; home: string; flag?: boolean }): SandboxReport {
  const { cwd, home } = options
  const settings = loadSettings(cwd, home, { workspaceTrusted: workspaceTrust({ cwd, home }).trusted })
  const flag = options.flag !== undefined ? { flag: options.flag } : {}
  const { policy, ignored } = resolveSessionSandbox({ cwd, home, settings, ...flag })
  const probe = probeSandbox()
  return { policy, ignored, available: probe.ok, ...(probe.ok ? {} : { reason: probe.reason }), ...flag }
}

/** The report as lines a person reads; the one text every surface prints (docs/sandbox.md). */
export function sandboxReportText(report: SandboxReport, home: string): string {
  const { policy, ignored } = report
  const tilde = (p: string) => (p.startsWith(`${homedir()}/`) ? `~${p.slice(homedir().length)}` : p)
  const decided =
    report.flag === undefined ? 'sandbox.enabled in settings; --sandbox and --no-sandbox decide for one run' : `${report.flag ? '--sandbox' : '--no-sandbox'} for this run`
  const lines = [
    `Sandbox: ${policy.enabled ? 'on' : 'off'} (${decided})`,
    `This machine: ${report.available ? 'bubblewrap works' : report.reason}`,
    `Network: ${policy.allowedDomains.length ? `only ${policy.allowedDomains.join(', ')}, through Rein's proxy` : 'none'}`,
    `Writable: the workspace (not .git/hooks, .git/config or agent config), a private /tmp${policy.allowWrite.map((p) => `, ${tilde(p)}`).join('')}`,
    `Hidden: credential stores in the home, ${tilde(home)}${policy.denyRead.map((p) => `, ${p}`).join('')}`,
    `Excluded commands: ${policy.excludedCommands.length ? policy.excludedCommands.join(', ') : 'none'}`,
    `Running outside after a failure: ${policy.allowUnsandboxed ? 'may be offered, always asking' : 'never'}`,
  ]
  if (ignored.length) lines.push(ignoredNotice(ignored))
  if (policy.enabled && !report.available) lines.push('Commands will ask for permission as without a sandbox until this machine can run it.')
  return lines.join('\n')
}
