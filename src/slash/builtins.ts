/** The names (and aliases) of the built-in commands, as the front-end core's catalog gives them once it is loaded. */
let builtinNames: () => readonly string[] = () => []

/**
 * Called once by the built-in command catalog (src/frontend/commands/catalog.ts), which sits above this folder: it
 * hands down how to read its names, so custom commands here can tell which names a built-in takes without importing
 * a front end. Read at call time, so a command added to the catalog later counts at once.
 */
export function provideBuiltinNames(names: () => readonly string[]): void {
  builtinNames = names
}

/**
 * Whether a name belongs to a built-in command. A custom command with such a name is listed as shadowed (`/help`),
 * and `/name` keeps its built-in meaning everywhere, `-p` included, so a prompt means the same in every front end.
 */
export function isBuiltinCommand(name: string): boolean {
  return builtinNames().includes(name.toLowerCase())
}
