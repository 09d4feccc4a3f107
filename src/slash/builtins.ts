import { SLASH_COMMANDS } from '../cli/tui/slash-commands.js'

/**
 * Whether a name belongs to a built-in command (the terminal UI's, which include every command the ACP server answers
 * itself, plus `/skills` and `/exit`). A custom command with such a name is listed as shadowed (`/help`), and `/name`
 * keeps its built-in meaning everywhere, `-p` included, so a prompt means the same in every front end. Read at call
 * time: the terminal UI's list imports this folder back.
 */
export function isBuiltinCommand(name: string): boolean {
  const lower = name.toLowerCase()
  return lower === 'exit' || lower === 'skills' || SLASH_COMMANDS.some((c) => c.name === lower)
}
