import type { ExtraHookFile } from '../hooks/catalog.js'
import { parseServer, type McpServerConfig } from '../mcp/config.js'
import type { PromptRoot } from '../prompt-files/roots.js'
import { PLUGIN_ROOT_VAR, type PluginSet } from './plugin.js'

/** A plugin's folders of commands, agents and skills as the prompt-file loaders' source roots. */
export function promptRoots(set: PluginSet): PromptRoot[] {
  return set.plugins.map((p) => ({
    namespace: p.name,
    base: p.root,
    commands: p.commandDirs,
    agents: p.agentDirs,
    skills: p.skillDirs,
    variables: { [PLUGIN_ROOT_VAR]: p.root },
  }))
}

/** Every plugin's hook configurations, for the hook loader: user-level (only plugins that may run are loaded), with the plugin's root. */
export function pluginHookFiles(set: PluginSet): ExtraHookFile[] {
  return set.plugins.flatMap((p) => p.hooks.map((h) => ({ file: { path: h.path, dialect: 'claude' as const, scope: 'user' as const, variables: { [PLUGIN_ROOT_VAR]: p.root } }, text: h.text })))
}

/**
 * Every plugin's MCP servers, named `plugin:<plugin>:<server>` as Claude Code names them (so their tools are
 * `mcp__plugin_<plugin>_<server>__<tool>`), with `${CLAUDE_PLUGIN_ROOT}` expanded and the variable set for the server.
 */
export function pluginMcpServers(set: PluginSet, env: NodeJS.ProcessEnv): { servers: McpServerConfig[]; problems: string[] } {
  const servers: McpServerConfig[] = []
  const problems: string[] = []
  for (const plugin of set.plugins) {
    const vars = { ...env, [PLUGIN_ROOT_VAR]: plugin.root }
    for (const [name, raw] of Object.entries(plugin.mcpServers)) {
      const parsed = parseServer(`plugin:${plugin.name}:${name}`, raw, plugin.mcpFile, vars)
      if (typeof parsed === 'string') problems.push(parsed)
      else servers.push({ ...parsed, origin: `plugin ${plugin.name}`, ...(parsed.type === 'stdio' ? { env: { [PLUGIN_ROOT_VAR]: plugin.root, ...parsed.env } } : {}) })
    }
  }
  return { servers, problems }
}
