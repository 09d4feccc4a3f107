import type { Command } from 'commander'

/** Every subcommand registers itself here, one line each. */
export function registerCommands(program: Command): void {
  void program
}
