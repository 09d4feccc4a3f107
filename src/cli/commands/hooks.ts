import { existsSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import type { Command } from 'commander'
import { displayPath } from '../../hooks/config-file.js'
import { loadHookCatalog, recordTrust, type HookDefinition } from '../../hooks/index.js'
import { reinHome } from '../../store/home.js'
import { workspaceTrust } from '../../runtime/workspace-trust.js'
import { fail, UsageError } from '../fail.js'
import { counted } from '../../text/count.js'

export interface HooksCommandOptions {
  cwd: string
  home: string
  userHome: string
  write(text: string): void
  writeError(text: string): void
}

type Trust = 'user' | 'trusted' | 'untrusted'

function trustOf(definition: HookDefinition, untrusted: ReadonlySet<HookDefinition>): Trust {
  if (definition.file.scope === 'user') return 'user'
  return untrusted.has(definition) ? 'untrusted' : 'trusted'
}

const TRUST_LABEL: Record<Trust, string> = {
  user: 'user file, runs',
  trusted: 'project file, trusted',
  untrusted: 'project file, NOT trusted: run `rein trust` (or `rein hooks trust`) to allow it',
}

/**
 * `rein hooks list`: every hook definition Rein found, in load order, with its event, matcher, command, source
 * file and trust. Files that could not be read are reported on stderr. Returns the exit code.
 */
export function listHooks(options: HooksCommandOptions & { json?: boolean }): number {
  const catalog = loadHookCatalog({ ...options, workspaceTrusted: workspaceTrust(options).trusted })
  for (const problem of catalog.problems) options.writeError(`rein: ${problem}\n`)
  const untrusted = new Set(catalog.untrusted)
  const all = [...catalog.active, ...catalog.untrusted].sort((a, b) => a.order - b.order)
  if (options.json) {
    const rows = all.map((d) => ({
      event: d.event,
      matcher: d.matcher,
      command: d.command,
      timeout: d.timeoutSec ?? null,
      file: d.file.path,
      format: d.file.dialect,
      trust: trustOf(d, untrusted),
    }))
    options.write(JSON.stringify(rows, null, 2) + '\n')
    return 0
  }
  if (all.length === 0) {
    options.write('No hooks are configured. Rein reads them from ~/.claude/settings.json, ~/.codex/hooks.json, Rein\'s settings, and the project\'s .claude, .codex and .rein folders.\n')
    return 0
  }
  const lines = all.map((d) => {
    const timeout = d.timeoutSec !== undefined ? `, timeout ${d.timeoutSec} s` : ''
    return `${d.event} [${d.matcher || '*'}] ${d.command}\n    ${displayPath(d.file.path, options.cwd)} (${TRUST_LABEL[trustOf(d, untrusted)]}${timeout})`
  })
  options.write(lines.join('\n') + '\n')
  return 0
}

/** `rein hooks trust`: records every new or changed project hook definition as trusted. */
export function trustHooks(options: HooksCommandOptions): number {
  const catalog = loadHookCatalog(options)
  for (const problem of catalog.problems) options.writeError(`rein: ${problem}\n`)
  if (catalog.untrusted.length === 0) {
    options.write('There are no new or changed project hooks to trust.\n')
    return 0
  }
  recordTrust(options.home, catalog.untrusted)
  const names = catalog.untrusted.map((d) => `  ${d.event} [${d.matcher || '*'}] ${d.command} (${displayPath(d.file.path, options.cwd)})`)
  const count = catalog.untrusted.length
  options.write(`Trusted ${counted(count, 'project hook')}:\n${names.join('\n')}\n`)
  return 0
}

function workingDirectory(flag: string | undefined): string {
  const cwd = resolve(flag ?? process.cwd())
  if (!existsSync(cwd)) throw new UsageError(`The working directory ${cwd} does not exist.`)
  if (!statSync(cwd).isDirectory()) throw new UsageError(`The working directory ${cwd} is a file, not a directory; pass its folder to --cwd.`)
  return cwd
}

/** `rein hooks list` and `rein hooks trust`. */
export function registerHooksCommand(program: Command): void {
  const hooks = program.command('hooks').description('show and trust the Claude Code and Codex hooks Rein runs')
  const io = { write: (text: string) => process.stdout.write(text), writeError: (text: string) => process.stderr.write(text) }
  hooks
    .command('list')
    .description('show every hook, its source file and whether it is trusted')
    .option('--cwd <dir>', 'working directory (default: the current one)')
    .option('--json', 'print the hooks as JSON')
    .action((flags: { cwd?: string; json?: boolean }) => {
      try {
        process.exitCode = listHooks({ cwd: workingDirectory(flags.cwd), home: reinHome(), userHome: homedir(), json: flags.json, ...io })
      } catch (error) {
        fail(error)
      }
    })
  hooks
    .command('trust')
    .description("trust this project's hook definitions (until they change)")
    .option('--cwd <dir>', 'working directory (default: the current one)')
    .action((flags: { cwd?: string }) => {
      try {
        process.exitCode = trustHooks({ cwd: workingDirectory(flags.cwd), home: reinHome(), userHome: homedir(), ...io })
      } catch (error) {
        fail(error)
      }
    })
}
