import { Option, type Command } from 'commander'
import { runRpc } from '../rpc/rpc-mode.js'
import { agentOptions, type RunFlags } from './run.js'
import { fail } from '../fail.js'

/** `rein rpc`: drive the agent over newline-delimited JSON on stdio (docs/rpc.md). */
export function registerRpcCommand(program: Command): void {
  program
    .command('rpc')
    .description('drive an agent over newline-delimited JSON on stdin/stdout')
    .option('--model <id>', 'model id')
    .option('--effort <level>', 'thinking effort: off, low, high, max')
    .option('--resume <id>', 'resume a session')
    .option('-c, --continue', 'resume the latest session of this directory')
    .option('--fork <id[@seq]>', 'start from a copy of another session')
    .option('--cwd <dir>', 'working directory')
    .option('--permission-mode <mode>', 'permission mode')
    .option('--allow <rule...>', 'extra allow rules')
    .option('--trust-project', "trust this workspace's settings, hooks and MCP servers for this run only")
    .addOption(new Option('--trust-project-hooks', 'alias of --trust-project').hideHelp())
    .option('--ask-permissions', 'send permission requests to the client instead of denying')
    .action(async (flags: RunFlags & { askPermissions?: boolean }) => {
      try {
        process.exitCode = await runRpc({ ...agentOptions({ ...flags, outputFormat: 'text' }), askPermissions: flags.askPermissions })
      } catch (error) {
        fail(error)
      }
    })
}
