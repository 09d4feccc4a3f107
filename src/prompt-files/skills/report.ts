import { homedir } from 'node:os'
import { loadingRefusal } from '../../config/read-guard.js'
import { reinHome } from '../../store/home.js'
import { loadSkills, skillFolders } from './catalog.js'

/** What `/skills` shows: every skill with its origin and description, then the files that could not be loaded. */
export function skillsReport(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const where = { cwd, reinHome: reinHome(env), userHome: env.HOME ?? homedir() }
  const { skills, problems } = loadSkills(skillFolders(where), cwd, loadingRefusal(undefined, where))
  const lines = skills.length
    ? skills.map((s) => `${s.name}${s.displayName ? ` — ${s.displayName}` : ''} (${s.scope}, ${s.dir})\n  ${s.description}${s.allowedTools.length ? `\n  allowed-tools: ${s.allowedTools.join(', ')}` : ''}`)
    : ['No skills. Put a folder with a SKILL.md in .claude/skills, .rein/skills or .agents/skills (or ~/.claude/skills, ~/.rein/skills).']
  return [...lines, ...(problems.length ? ['', 'Not loaded:', ...problems.map((p) => `- ${p}`)] : [])].join('\n')
}
