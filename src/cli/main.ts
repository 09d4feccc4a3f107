#!/usr/bin/env node
import { Command, CommanderError } from 'commander'
import { readFileSync } from 'node:fs'
import { registerCommands } from './commands/index.js'

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }

const program = new Command('rein')
  .description('An agent harness for DeepSeek models whose session log is the truth.')
  .version(pkg.version, '-v, --version')
  .showHelpAfterError()
  .exitOverride()
registerCommands(program)
for (const command of program.commands) command.exitOverride()

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
