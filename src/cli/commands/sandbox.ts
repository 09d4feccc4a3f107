import type { Command } from 'commander'
import { homedir } from 'node:os'
import { loadSettings } from '../../config/settings.js'
import { ignoredNotice, resolveSessionSandbox } from '../../runtime/sandbox.js'
import { probeSandbox } from '../../sandbox/probe.js'
import { reinHome } from '../../store/home.js'
import { workspaceTrust } from '../../trust/workspace.js'

/**
 * `rein sandbox`: whether shell commands would run sandboxed in this workspace, whether this machine can, and the
 * policy after every settings layer (docs/sandbox.md). Starts nothing.
 */
export function registerSandboxCommand(program: Command): void {
  program
    .command('sandbox')
    .description('Show whether commands run sandboxed here, whether bubblewrap works, and the resolved sandbox policy.')
    .option('--json', 'print one JSON object')
    .action((flags: { json?: boolean }) => {
      const cwd = process.cwd()
      const home = reinHome()
      let resolved
      try {
        const settings = loadSettings(cwd, home, { workspaceTrusted: workspaceTrust({ cwd, home }).trusted })
        resolved = resolveSessionSandbox({ cwd, home, settings })
      } catch (error) {
        process.stderr.write(`${(error as Error).message}\n`)
        process.exitCode = 1
        return
      }
      const probe = probeSandbox()
      const { policy, ignored } = resolved
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ policy, ignored, available: probe.ok, ...(probe.ok ? {} : { reason: probe.reason }) })}\n`)
        return
      }
      const tilde = (p: string) => (p.startsWith(`${homedir()}/`) ? `~${p.slice(homedir().length)}` : p)
      const lines = [
        `Sandbox: ${policy.enabled ? 'on' : 'off'} (sandbox.enabled in settings; --sandbox and --no-sandbox decide for one run)`,
        `This machine: ${probe.ok ? 'bubblewrap works' : probe.reason}`,
        `Network: ${policy.allowedDomains.length ? `only ${policy.allowedDomains.join(', ')}, through Rein's proxy` : 'none'}`,
        `Writable: the workspace (not .git/hooks, .git/config or agent config), a private /tmp${policy.allowWrite.map((p) => `, ${tilde(p)}`).join('')}`,
        `Hidden: credential stores in the home, ${tilde(home)}${policy.denyRead.map((p) => `, ${p}`).join('')}`,
        `Excluded commands: ${policy.excludedCommands.length ? policy.excludedCommands.join(', ') : 'none'}`,
        `Running outside after a failure: ${policy.allowUnsandboxed ? 'may be offered, always asking' : 'never'}`,
      ]
      if (ignored.length) lines.push(ignoredNotice(ignored))
      if (policy.enabled && !probe.ok) lines.push('Commands will ask for permission as without a sandbox until this machine can run it.')
      process.stdout.write(`${lines.join('\n')}\n`)
    })
}
