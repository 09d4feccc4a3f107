import { Command, CommanderError } from 'commander'
import { readFileSync } from 'node:fs'
import { registerCommands } from './commands/index.js'

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }

const program = new Command('rein')
  .description('An agent harness for DeepSeek models whose session log is the truth.')
  .version(pkg.version, '-v, --version')
  // One sentence for bad usage, not the whole help: scripts written for Claude Code read stderr.
  .showHelpAfterError('(rein --help lists the options)')
  // Root options (one-shot flags) apply before a subcommand's name only, so `rein rpc --allow …` reaches rpc.
  .enablePositionalOptions()
  .exitOverride()
await registerCommands(program, process.argv)
const overrideExits = (command: Command): void => {
  command.exitOverride()
  command.commands.forEach(overrideExits)
}
program.commands.forEach(overrideExits)

try {
  await program.parseAsync(process.argv)
} catch (error) {
  // Commander reports bad usage itself; its own exits (help, version) are not failures.
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : 2
  } else {
    throw error
  }
}
