import { join } from 'node:path'
import type { Grant, WorkspacePlaces } from '../trust/grant.js'
import { commandFolders, loadCommands } from './commands/catalog.js'
import { shellRuns } from './commands/expand.js'
import { loadSkills, skillFolders } from './skills/catalog.js'


/**
 * What the workspace's own skills and custom commands would widen, as trust grants: a command's shell (`` !`cmd` `` and
 * ```` ```! ```` blocks, found by the expansion's own reader) and
 * `allowed-tools`, a skill's `allowed-tools`. They are inert until the user trusts the workspace, and the hash covers
 * them, so editing one asks again. The user's own folders need no trust and are not listed. Agent files widen
 * nothing (a child's tools are cut to its parent's, and its permission questions are the parent's), so they report none.
 */
export function promptFileGrants({ cwd }: Pick<WorkspacePlaces, 'cwd'>): Grant[] {
  const grants: Grant[] = []
  const project = <T extends { scope: string }>(folders: T[]): T[] => folders.filter((f) => f.scope === 'project')
  // Only the workspace's folders are read, so the user-level locations do not matter here.
  const where = { cwd, reinHome: cwd, userHome: cwd }
  // The gate's own checks hold here (nothing is read through a link out of its folder), but no deny rules: a file
  // they refuse is never loaded, so listing what it would widen only asks trust for a little more than needed.
  const noRules = () => undefined
  for (const command of loadCommands(project(commandFolders(where)), noRules).commands) {
    const runs = shellRuns(command.body)
    if (runs.length) {
      grants.push({ kind: 'command', file: command.file, label: `command /${command.name} running ${runs.map((r) => JSON.stringify(r)).join(', ')}`, value: runs })
    }
    if (command.allowedTools.length) {
      grants.push({ kind: 'command', file: command.file, label: `command /${command.name} allowing ${command.allowedTools.join(', ')}`, value: command.allowedTools })
    }
  }
  for (const skill of loadSkills(project(skillFolders(where)), cwd, noRules).skills) {
    if (!skill.allowedTools.length) continue
    grants.push({ kind: 'skill', file: join(skill.dir, 'SKILL.md'), label: `skill ${skill.name} allowing ${skill.allowedTools.join(', ')}`, value: skill.allowedTools })
  }
  return grants
}
