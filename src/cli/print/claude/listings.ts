import { commandsAndSkills } from '../../../frontend/commands/custom.js'
import type { PluginSet } from '../../../plugins/plugin.js'
import { promptRoots } from '../../../plugins/roots.js'
import type { InitFacts } from './init.js'

/**
 * The init line's listings, read from the loaders the other front ends use: custom commands and skills (both run
 * as `/name`, so both are slash commands, as in Claude Code; a plugin's as `plugin:name`), the subagent types, and the
 * plugins the session loaded with one `plugin_errors` entry for each that did not load.
 */
export function initListings(
  cwd: string,
  env: NodeJS.ProcessEnv,
  agents: readonly string[],
  plugins: PluginSet,
): Pick<InitFacts, 'slashCommands' | 'skills' | 'agents' | 'plugins' | 'pluginErrors'> {
  const { commands, skills } = commandsAndSkills(cwd, env, promptRoots(plugins))
  const skillNames = skills.map((s) => s.name)
  return {
    slashCommands: [...new Set([...commands.map((c) => c.name), ...skillNames])],
    skills: skillNames,
    agents: [...agents].sort(),
    plugins: plugins.plugins.map((p) => ({ name: p.name, path: p.root, ...(p.version ? { version: p.version } : {}) })),
    pluginErrors: plugins.errors.map((e) => ({ plugin: e.plugin, type: 'generic-error', message: e.message, ...(e.path ? { path: e.path } : {}) })),
  }
}
