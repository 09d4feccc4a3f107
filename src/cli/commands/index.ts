import type { Command } from 'commander'
import { registerRunCommand } from './run.js'
import { registerRpcCommand } from './rpc.js'

/** Every subcommand registers itself here, one line each. */
export function registerCommands(program: Command): void {
  registerRunCommand(program)
  registerRpcCommand(program)
}
