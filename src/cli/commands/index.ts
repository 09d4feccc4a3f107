import type { Command } from 'commander'
import { registerSessionsCommand } from './sessions.js'
import { registerAcpCommand } from './acp.js'
import { registerRunCommand } from './run.js'
import { registerRpcCommand } from './rpc.js'
import { registerDemoCommand } from './demo.js'
import { registerMcpCommand } from './mcp.js'
import { registerHooksCommand } from './hooks.js'
import { registerMockModelCommand } from './mock-model.js'

/** Every subcommand registers itself here, one line each. */
export function registerCommands(program: Command): void {
  registerSessionsCommand(program)
  registerAcpCommand(program)
  registerRunCommand(program)
  registerRpcCommand(program)
  registerDemoCommand(program)
  registerMcpCommand(program)
  registerHooksCommand(program)
  registerMockModelCommand(program)
}
