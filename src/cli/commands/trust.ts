import { existsSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import type { Command } from 'commander'
import { reinHome } from '../../store/home.js'
import { revokeTrustRecord, trustedWorkspaces } from '../../trust/store.js'
import { describeGrant, workspaceDir } from '../../trust/workspace.js'
import { trustWorkspace, workspaceTrust } from '../../runtime/workspace-trust.js'
import { fail, UsageError } from '../fail.js'

export interface TrustCommandOptions {
  home: string
  userHome?: string
  write(text: string): void
}

/** `rein trust [dir]`: prints exactly what the workspace defines that needs trust, then records trust in it. */
export function trustCommand(dir: string, options: TrustCommandOptions): number {
  const trust = trustWorkspace({ cwd: dir, home: options.home, userHome: options.userHome })
  const lines = trust.grants.map((grant) => `  ${describeGrant(grant)}`)
  options.write(
    lines.length
      ? `Trusted ${trust.dir}. These now take effect there:\n${lines.join('\n')}\nAn edit to any of them, or a new one, asks again.\n`
      : `Trusted ${trust.dir}. It defines no allow rules, modes, directories, hooks or MCP servers yet; anything it adds later asks first.\n`,
  )
  return 0
}

/** `rein trust --list`: every trusted workspace, whether it still matches what was trusted, and what that was. */
export function listTrust(options: TrustCommandOptions): number {
  const entries = Object.entries(trustedWorkspaces(options.home)).sort(([a], [b]) => a.localeCompare(b))
  if (entries.length === 0) {
    options.write('No workspace is trusted. `rein trust [dir]` trusts one.\n')
    return 0
  }
  for (const [dir, record] of entries) {
    const current = existsSync(dir) ? workspaceTrust({ cwd: dir, home: options.home, userHome: options.userHome }) : undefined
    const state = !current ? 'missing' : current.trusted ? 'trusted' : 'changed since, not trusted until `rein trust` again'
    options.write(`${dir} (${state}; trusted ${record.trustedAt})\n`)
    for (const grant of record.grants ?? []) options.write(`  ${grant}\n`)
  }
  return 0
}

/** `rein trust --revoke [dir]`. */
export function revokeTrust(dir: string, options: TrustCommandOptions): number {
  const key = workspaceDir(dir)
  options.write(revokeTrustRecord(options.home, key) ? `${key} is no longer trusted.\n` : `${key} was not trusted; nothing changed.\n`)
  return 0
}

function directory(arg: string | undefined): string {
  const dir = resolve(arg ?? process.cwd())
  if (!existsSync(dir)) throw new UsageError(`The directory ${dir} does not exist.`)
  if (!statSync(dir).isDirectory()) throw new UsageError(`${dir} is a file, not a directory; pass the workspace's folder.`)
  return dir
}

export function registerTrustCommand(program: Command): void {
  program
    .command('trust')
    .description("trust a workspace's allow rules, modes, directories, hooks and MCP servers (until they change)")
    .argument('[dir]', 'the workspace (default: the current directory)')
    .option('--list', 'show every trusted workspace')
    .option('--revoke', 'stop trusting the workspace')
    .action((dir: string | undefined, flags: { list?: boolean; revoke?: boolean }) => {
      try {
        const options = { home: reinHome(), userHome: homedir(), write: (text: string) => process.stdout.write(text) }
        if (flags.list && flags.revoke) throw new UsageError('Use either --list or --revoke, not both.')
        if (flags.list) {
          if (dir !== undefined) throw new UsageError('--list shows every trusted workspace; leave out the directory.')
          process.exitCode = listTrust(options)
        } else if (flags.revoke) {
          // A workspace that was deleted can still be revoked by the path it was trusted under.
          process.exitCode = revokeTrust(resolve(dir ?? process.cwd()), options)
        } else {
          process.exitCode = trustCommand(directory(dir), options)
        }
      } catch (error) {
        fail(error)
      }
    })
}
