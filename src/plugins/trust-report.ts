import type { Grant, WorkspacePlaces } from '../trust/grant.js'
import { commandFolders, loadCommands } from '../prompt-files/commands/catalog.js'
import { shellRuns } from '../prompt-files/commands/expand.js'
import { enabledPlugins, resolvePlugins } from './sources.js'
import { promptRoots } from './roots.js'
import type { LoadedPlugin } from './plugin.js'

/**
 * The plugins only the workspace's settings enable, as trust grants: one per plugin, listing what it would run — its
 * hooks, its MCP servers, and its commands' shell (`` !`cmd` `` and ```` ```! ```` blocks). Plugins the user named
 * (a flag, an install, their own settings) need no workspace trust and are not listed. The hash covers what each
 * plugin brings, so a plugin that changes asks again.
 */
export function pluginGrants(places: WorkspacePlaces): Grant[] {
  const enabled = enabledPlugins(places.cwd, places.home)
  const asked = [...enabled].filter(([, s]) => s.value && !s.user)
  if (!asked.length) return []
  // As a trusted workspace would load them; the user-named ones are dropped below.
  const set = resolvePlugins({ cwd: places.cwd, home: places.home, workspaceTrusted: true })
  return asked.map(([key, setting]) => {
    const plugin = set.plugins.find((p) => p.key === key && p.source === 'project-settings')
    if (!plugin) return undefined
    return { kind: 'plugin' as const, file: setting.file, label: `plugin ${key}${grantsOf(plugin, places)}`, value: { key, root: plugin.root, ...parts(plugin, places) } }
  }).filter((g): g is NonNullable<typeof g> => g !== undefined)
}

function parts(plugin: LoadedPlugin, places: WorkspacePlaces) {
  const hooks = plugin.hooks.map((h) => h.text)
  const servers = plugin.mcpServers
  const root = promptRoots({ plugins: [plugin], errors: [], untrusted: [] })
  const shell = loadCommands(commandFolders({ cwd: places.cwd, reinHome: places.home, userHome: places.userHome, roots: root }).filter((f) => f.namespace), () => undefined)
    .commands.map((c) => ({ command: `${plugin.name}:${c.name}`, runs: shellRuns(c.body) }))
    .filter((c) => c.runs.length)
  return { hooks, servers, shell }
}

/** ` with hooks (Stop), MCP servers (db), commands running shell (/x:setup)`, or '' when it runs nothing. */
function grantsOf(plugin: LoadedPlugin, places: WorkspacePlaces): string {
  const { hooks, servers, shell } = parts(plugin, places)
  const events = [...new Set(hooks.flatMap((text) => Object.keys(hooksOf(text))))]
  const out = [
    ...(events.length ? [`hooks (${events.join(', ')})`] : []),
    ...(Object.keys(servers).length ? [`MCP servers (${Object.keys(servers).join(', ')})`] : []),
    ...(shell.length ? [`commands running shell (${shell.map((c) => `/${c.command}`).join(', ')})`] : []),
  ]
  return out.length ? ` with ${out.join(', ')}` : ''
}

function hooksOf(text: string): Record<string, unknown> {
  try {
    const hooks = (JSON.parse(text) as { hooks?: unknown }).hooks
    return hooks && typeof hooks === 'object' && !Array.isArray(hooks) ? (hooks as Record<string, unknown>) : {}
  } catch {
    // A hook file that does not parse runs nothing; the hook loader reports it when the plugin loads.
    return {}
  }
}
