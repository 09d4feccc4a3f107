import type { CommandChoice } from '../../frontend/commands/completion.js'
import { isBuiltinCommand } from '../../slash/builtins.js'
import { commandsFor, suggestCommand as suggestOn } from '../../frontend/commands/catalog.js'
import { offeredCommands } from '../../prompt-files/commands/listing.js'
import type { PromptRoot } from '../../prompt-files/roots.js'

export { parseSlash } from '../../frontend/commands/catalog.js'

/** The keys `/help` explains. */
export const KEY_HELP: readonly [string, string][] = [
  ['Enter', 'send; while the agent works, steer it at the next step'],
  ['Alt+Enter, Tab', 'queue a follow-up for after the turn'],
  ['Ctrl+J, Shift+Enter, \\ Enter', 'new line'],
  ['Up / Down', 'history; Up on an empty editor takes back the last queued message'],
  ['Esc', 'cancel the running turn'],
  ['Ctrl+O', 'expand the last collapsed reasoning or context'],
  ['Ctrl+C', 'clear the editor; twice to exit'],
  ['@path', 'mention a workspace file (Tab completes)'],
]

/** The built-in the terminal UI offers closest to a mistyped name. */
export function suggestCommand(name: string): string | undefined {
  return suggestOn(name, 'tui')
}

// Custom commands (src/slash) beside the built-ins: completion offers both, and a custom name is sent as a prompt.

/** Whether `/name` is a custom command rather than a built-in. */
export function isCustomCommand(cwd: string, name: string, roots?: readonly PromptRoot[]): boolean {
  const builtin = commandsFor('tui', cwd).some((c) => c.name === name || c.aliases?.includes(name))
  return !builtin && offeredCommands(cwd, isBuiltinCommand, process.env, roots).offered.some((c) => c.name === name || c.command.name === name)
}

/** Every command the editor completes: the catalog's built-ins for the terminal UI, then the custom commands (the plugins' among them). */
export function commandChoices(cwd: string, roots?: readonly PromptRoot[]): CommandChoice[] {
  const builtins = commandsFor('tui', cwd).map((c) => ({ name: c.name, ...(c.argument ? { hint: c.argument.hint } : {}) }))
  return [...builtins, ...offeredCommands(cwd, isBuiltinCommand, process.env, roots).offered.map((c) => ({ name: c.name, hint: c.hint }))]
}
