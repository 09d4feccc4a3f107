import { homedir } from 'node:os'
import { isBuiltinCommand } from '../../slash/builtins.js'
import { loadingRefusal } from '../../config/read-guard.js'
import { loadSkills, skillFolders } from '../../prompt-files/skills/catalog.js'
import { offeredCommands } from '../../prompt-files/commands/listing.js'
import { reinHome } from '../../store/home.js'
import type { PromptRoot } from '../../prompt-files/roots.js'

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

/** The custom commands a client may offer, those a built-in shadows, and the skills (RPC's `get_commands`, the web's listing). */
export function commandsAndSkills(cwd: string, env: NodeJS.ProcessEnv = process.env, roots?: readonly PromptRoot[]) {
  const { offered, shadowed } = offeredCommands(cwd, isBuiltinCommand, env, roots)
  const entry = (c: (typeof offered)[number]) => ({ name: c.name, description: c.description, ...(c.hint ? { hint: c.hint } : {}), origin: c.origin })
  const where = { cwd, reinHome: reinHome(env), userHome: env.HOME ?? homedir() }
  const { skills } = loadSkills(skillFolders({ ...where, roots }), cwd, loadingRefusal(undefined, where))
  return {
    commands: offered.map(entry),
    shadowed: shadowed.map(entry),
    skills: skills.map((s) => ({ name: s.name, description: s.description, scope: s.scope })),
  }
}
