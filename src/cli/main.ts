#!/usr/bin/env node
import { Command } from 'commander'
import { readFileSync } from 'node:fs'
import { registerCommands } from './commands/index.js'

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }

const program = new Command('rein')
  .description('An agent harness for DeepSeek models whose session log is the truth.')
  .version(pkg.version, '-v, --version')
  .showHelpAfterError()
registerCommands(program)
await program.parseAsync(process.argv)
