import { homedir } from 'node:os'
import { loadingRefusal } from '../../config/read-guard.js'
import { reinHome } from '../../store/home.js'
import { commandFolders, loadCommands, shownName, type CustomCommand } from './catalog.js'
import type { PromptRoot } from '../roots.js'

/** A custom command as front ends offer it (completion, `/help`, ACP's `available_commands_update`). */
export interface OfferedCommand {
  name: string
  description: string
  hint?: string
  /** Where it comes from, as `/help` shows it: `project`, `user`, `project:frontend`. */
  origin: string
  command: CustomCommand
}

/**
 * The custom commands of a workspace as front ends list them: those a built-in name shadows are apart, so `/help`
 * can say the built-in wins. The folders are read on every call (a few small files), so the list is never stale.
 * `isBuiltin` tells a built-in command's name (the front ends' command catalog, which lives above this folder).
 */
export function offeredCommands(
  cwd: string,
  isBuiltin: (name: string) => boolean,
  env: NodeJS.ProcessEnv = process.env,
  roots?: readonly PromptRoot[],
): { offered: OfferedCommand[]; shadowed: OfferedCommand[] } {
  const where = { cwd, reinHome: reinHome(env), userHome: env.HOME ?? homedir() }
  const catalog = loadCommands(commandFolders({ ...where, roots }), loadingRefusal(undefined, where))
  const offered: OfferedCommand[] = []
  const shadowed: OfferedCommand[] = []
  for (const command of catalog.commands) {
    const name = shownName(catalog, command)
    const entry: OfferedCommand = {
      name,
      description: command.description,
      ...(command.argumentHint ? { hint: command.argumentHint } : {}),
      origin: command.plugin ? `plugin ${command.plugin}` : command.namespace ? `${command.scope}:${command.namespace}` : command.scope,
      command,
    }
    ;(isBuiltin(name) ? shadowed : offered).push(entry)
  }
  const byName = (a: OfferedCommand, b: OfferedCommand) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  return { offered: offered.sort(byName), shadowed: shadowed.sort(byName) }
}
