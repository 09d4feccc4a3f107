import { commandsAndSkills } from '../../../frontend/commands/custom.js'
import type { InitFacts } from './init.js'

/**
 * The init line's listings, read from the loaders the other front ends use: custom commands and skills (both run
 * as `/name`, so both are slash commands, as in Claude Code), the subagent types, and the plugins. Plugins are not
 * loaded yet, so a `--plugin-dir` is never in `plugins` and each gets a `plugin_errors` entry saying so.
 */
export function initListings(
  cwd: string,
  env: NodeJS.ProcessEnv,
  agents: readonly string[],
  pluginDirs: readonly string[],
): Pick<InitFacts, 'slashCommands' | 'skills' | 'agents' | 'plugins' | 'pluginErrors'> {
  const { commands, skills } = commandsAndSkills(cwd, env)
  const skillNames = skills.map((s) => s.name)
  return {
    slashCommands: [...new Set([...commands.map((c) => c.name), ...skillNames])],
    skills: skillNames,
    agents: [...agents].sort(),
    plugins: [],
    pluginErrors: pluginDirs.map((path, i) => ({
      plugin: `inline[${i}]`,
      type: 'generic-error',
      message: 'Rein does not load plugins yet; its commands, agents, skills and hooks are absent.',
      path,
    })),
  }
}
