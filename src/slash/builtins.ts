import { SLASH_COMMANDS } from '../cli/tui/slash-commands.js'

/**
 * Names a custom command can never take: the built-in commands (the terminal UI's, which include every command the
 * ACP server answers itself, plus `/skills`). A custom command with one of these names is listed as shadowed
 * (`/help`), and `/name` keeps its built-in meaning everywhere, `-p` included, so a prompt means the same in every
 * front end.
 */
export const BUILTIN_COMMAND_NAMES: ReadonlySet<string> = new Set([...SLASH_COMMANDS.map((c) => c.name), 'exit', 'skills'])
