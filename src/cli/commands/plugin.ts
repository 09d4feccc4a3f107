import { resolve } from 'node:path'
import type { Command } from 'commander'
import { addMarketplace, installPlugin, removeMarketplace, removePlugin } from '../../plugins/install.js'
import { readRegistry } from '../../plugins/registry.js'
import { resolvePlugins } from '../../plugins/sources.js'
import { workspaceTrust } from '../../runtime/workspace-trust.js'
import { reinHome } from '../../store/home.js'
import { fail } from '../fail.js'

export interface PluginCommandOptions {
  cwd: string
  home: string
  write(text: string): void
}

/**
 * `rein plugin list`: the plugins a session in `cwd` loads (installed, enabled in settings) with where each is, then
 * the ones that did not load and why, then the marketplaces added. Returns the exit code.
 */
export function listPlugins(options: PluginCommandOptions & { json?: boolean }): number {
  const set = resolvePlugins({ cwd: options.cwd, home: options.home, workspaceTrusted: workspaceTrust({ cwd: options.cwd, home: options.home }).trusted })
  const registry = readRegistry(options.home)
  if (options.json) {
    const plugins = set.plugins.map((p) => ({ name: p.name, key: p.key ?? null, path: p.root, version: p.version ?? null, source: p.source }))
    options.write(JSON.stringify({ plugins, errors: set.errors, marketplaces: registry.marketplaces }, null, 2) + '\n')
    return 0
  }
  const lines: string[] = []
  if (!set.plugins.length && !set.errors.length) lines.push('No plugins. Add a marketplace with `rein plugin marketplace add <path or git URL>`, then `rein plugin install name@marketplace`.')
  for (const p of set.plugins) lines.push(`${p.key ?? p.name}${p.version ? ` ${p.version}` : ''} (${p.source}) ${p.root}`)
  if (set.errors.length) lines.push('', 'Not loaded:', ...set.errors.map((e) => `- ${e.message}`))
  const markets = Object.entries(registry.marketplaces)
  if (markets.length) lines.push('', 'Marketplaces:', ...markets.map(([name, m]) => `- ${name}: ${m.source}`))
  options.write(lines.join('\n') + '\n')
  return 0
}

export function registerPluginCommand(program: Command): void {
  const plugin = program.command('plugin').description('install, list and remove Claude Code plugins')
  const cwdOf = (flags: { cwd?: string }) => resolve(flags.cwd ?? process.cwd())
  const write = (text: string) => process.stdout.write(text)
  const act =
    <A extends unknown[]>(run: (...args: A) => Promise<number> | number) =>
    async (...args: A) => {
      try {
        process.exitCode = await run(...args)
      } catch (error) {
        fail(error)
      }
    }
  plugin
    .command('install <plugin>')
    .description('install name@marketplace (a marketplace added before, or a marketplace folder or git URL)')
    .option('--cwd <dir>', 'where relative paths start (default: the current directory)')
    .action(
      act(async (spec: string, flags: { cwd?: string }) => {
        const installed = await installPlugin(spec, { home: reinHome(), cwd: cwdOf(flags) })
        write(`Installed ${installed.key}${installed.version ? ` ${installed.version}` : ''} in ${installed.path}.\n`)
        return 0
      }),
    )
  plugin
    .command('list')
    .description('show the plugins a session here loads, those that did not load, and the marketplaces')
    .option('--cwd <dir>', 'working directory (default: the current one)')
    .option('--json', 'print as JSON')
    .action(act((flags: { cwd?: string; json?: boolean }) => listPlugins({ cwd: cwdOf(flags), home: reinHome(), write, json: flags.json })))
  plugin
    .command('remove <plugin>')
    .alias('uninstall')
    .description('remove an installed plugin (name, or name@marketplace)')
    .action(
      act((spec: string) => {
        write(`Removed ${removePlugin(spec, { home: reinHome() })}.\n`)
        return 0
      }),
    )
  const market = plugin.command('marketplace').description('add, list and remove plugin marketplaces')
  market
    .command('add <source>')
    .description('add a marketplace: a folder with .claude-plugin/marketplace.json, or a git URL to clone')
    .option('--cwd <dir>', 'where a relative path starts (default: the current directory)')
    .action(
      act(async (source: string, flags: { cwd?: string }) => {
        const added = await addMarketplace(source, { home: reinHome(), cwd: cwdOf(flags) })
        write(`Added the marketplace ${added.name} (${added.entries.map((e) => e.name).join(', ') || 'no plugins'}).\n`)
        for (const problem of added.problems) process.stderr.write(`rein: ${problem}\n`)
        return 0
      }),
    )
  market
    .command('list')
    .description('show the marketplaces added')
    .action(
      act(() => {
        const markets = Object.entries(readRegistry(reinHome()).marketplaces)
        write(markets.length ? markets.map(([name, m]) => `${name}: ${m.source}${m.git ? ` (cloned to ${m.path})` : ''}`).join('\n') + '\n' : 'No marketplaces. Add one with `rein plugin marketplace add <path or git URL>`.\n')
        return 0
      }),
    )
  market
    .command('remove <name>')
    .description('remove a marketplace (installed plugins stay)')
    .action(
      act((name: string) => {
        removeMarketplace(name, { home: reinHome() })
        write(`Removed the marketplace ${name}.\n`)
        return 0
      }),
    )
}
