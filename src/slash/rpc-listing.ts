import { homedir } from 'node:os'
import { loadSkills, skillFolders } from '../prompt-files/skills/catalog.js'
import { loadingRefusal } from '../config/read-guard.js'
import { reinHome } from '../store/home.js'
import { offeredCommands } from '../prompt-files/commands/listing.js'
import { isBuiltinCommand } from './builtins.js'

/** What RPC's `get_commands` answers: the custom commands a client may offer, those a built-in shadows, and the skills. */
export function commandsAndSkills(cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const { offered, shadowed } = offeredCommands(cwd, isBuiltinCommand, env)
  const entry = (c: (typeof offered)[number]) => ({ name: c.name, description: c.description, ...(c.hint ? { hint: c.hint } : {}), origin: c.origin })
  const where = { cwd, reinHome: reinHome(env), userHome: env.HOME ?? homedir() }
  const { skills } = loadSkills(skillFolders(where), cwd, loadingRefusal(undefined, where))
  return {
    commands: offered.map(entry),
    shadowed: shadowed.map(entry),
    skills: skills.map((s) => ({ name: s.name, description: s.description, scope: s.scope })),
  }
}
