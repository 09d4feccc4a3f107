import type { Command } from 'commander'
import { runDemo } from '../demo/run-demo.js'
import { fail } from '../fail.js'

/** `rein demo`: see Rein work without a key. */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('run a short scripted session against the built-in mock model (no key needed)')
    .option('--keep', 'keep the temporary project and session log')
    .action(async (flags: { keep?: boolean }) => {
      try {
        process.exitCode = await runDemo({ keep: flags.keep })
      } catch (error) {
        fail(error)
      }
    })
}
