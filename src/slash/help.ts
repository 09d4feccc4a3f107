import { offeredCommands } from '../prompt-files/commands/listing.js'
import { isBuiltinCommand } from './builtins.js'

/**
 * The lines `/help` adds for custom commands: each with its hint, description and origin, then each one a built-in
 * shadows, saying that the built-in wins and which file is not used.
 */
export function customHelp(cwd: string): string[] {
  const { offered, shadowed } = offeredCommands(cwd, isBuiltinCommand)
  if (!offered.length && !shadowed.length) return []
  const lines = ['', 'Custom commands (.claude/commands, .rein/commands, ~/.claude/commands, ~/.rein/commands):']
  for (const c of offered) lines.push(`/${c.name}${c.hint ? ` ${c.hint}` : ''}`.padEnd(32) + `${c.description} (${c.origin})`)
  for (const c of shadowed) lines.push(`/${c.name}`.padEnd(32) + `the built-in /${c.name} wins; ${c.command.file} is not used`)
  return lines
}
