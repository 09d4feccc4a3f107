import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { gateDirectory, readGated, skippedNotice, type GateFolder, type Refusal } from '../../fs/read-gate.js'
import { parseFrontmatter, textField, toolRulesField } from '../frontmatter.js'
import type { Skill, SkillCatalog } from '../../tools/skill-catalog.js'

export interface SkillFolder {
  dir: string
  scope: 'user' | 'project'
  /**
   * Where links stop being trusted (the read gate's `base`): the workspace root for a project folder, so neither a
   * linked skill folder nor a `SKILL.md` linked out of it is read. Absent for the user's own folders: there each
   * skill's folder is its own base, since a user may link a skill in from anywhere, but nothing in it may link out.
   */
  base?: string
}

/**
 * Where skills are looked for, first match of a name wins: the user's own folders before the workspace's (a
 * repository cannot replace a skill the user relies on), Rein's before Claude Code's, and the cross-tool `.agents`
 * folder last.
 */
export function skillFolders(options: { cwd: string; reinHome: string; userHome: string }): SkillFolder[] {
  const project = (dir: string): SkillFolder => ({ dir, scope: 'project', base: options.cwd })
  return [
    { dir: join(options.reinHome, 'skills'), scope: 'user' },
    { dir: join(options.userHome, '.claude', 'skills'), scope: 'user' },
    project(join(options.cwd, '.rein', 'skills')),
    project(join(options.cwd, '.claude', 'skills')),
    project(join(options.cwd, '.agents', 'skills')),
  ]
}

/** Names as the Agent Skills format allows them: lowercase letters, digits and single hyphens, at most 64. */
const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/
const MAX_NAME = 64
const MAX_DESCRIPTION = 1024

/**
 * Every skill in the folders, first of a name winning. Each skill's folder and its `SKILL.md` pass the read gate
 * (`src/fs/read-gate.ts`) with `refuses`, the read guard; one the gate refuses, or that cannot be parsed, is one
 * problem sentence and no skill.
 */
export function loadSkills(folders: readonly SkillFolder[], cwd: string, refuses: Refusal): SkillCatalog {
  const skills: Skill[] = []
  const problems: string[] = []
  const names = new Set<string>()
  for (const folder of folders) {
    for (const dir of subfolders(folder.dir)) {
      const gate: GateFolder = { dir, base: folder.base ?? dir }
      const shown = folder.scope === 'user' ? dir : relative(cwd, dir)
      const checked = gateDirectory(dir, folder.base ? { dir: folder.dir, base: folder.base } : gate)
      if (checked.kind === 'absent') continue
      if (checked.kind === 'skipped') {
        problems.push(`${skippedNotice('skill folder', shown, checked.reason).replace(/\.$/, '')}; the other skills still load.`)
        continue
      }
      const loaded = loadSkill(dir, folder, gate, cwd, refuses)
      if (!loaded) continue
      if ('error' in loaded) problems.push(loaded.error)
      else if (!names.has(loaded.name)) {
        names.add(loaded.name)
        skills.push(loaded)
      }
    }
  }
  return { skills, problems }
}

function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => !e.name.startsWith('.') && (e.isDirectory() || e.isSymbolicLink()))
      .map((e) => join(dir, e.name))
      .sort()
  } catch {
    // A skills folder that does not exist (the usual case) or cannot be listed holds no skills.
    return []
  }
}

function loadSkill(dir: string, folder: SkillFolder, gate: GateFolder, cwd: string, refuses: Refusal): Skill | { error: string } | undefined {
  const file = join(dir, 'SKILL.md')
  const shown = folder.scope === 'user' ? file : relative(cwd, file)
  const read = readGated(file, { folder: gate, refuses })
  // A folder without SKILL.md is not a skill (it may hold something else entirely).
  if (read.kind === 'absent') return undefined
  if (read.kind === 'skipped') return { error: `${skippedNotice('skill file', shown, read.reason).replace(/\.$/, '')}; the other skills still load.` }
  return parseSkill(read.bytes.toString('utf8'), shown, dir, folder)
}

function parseSkill(text: string, shown: string, dir: string, folder: SkillFolder): Skill | { error: string } {
  const label = `The skill file ${shown}`
  const matter = parseFrontmatter(text, label)
  if ('error' in matter) return { error: `${matter.error.replace(/\.$/, '')}; the other skills still load.` }
  const name = textField(matter, 'name', label) ?? dir.split(/[\\/]/).pop()!
  const description = textField(matter, 'description', label)
  const tools = toolRulesField(matter.data, 'allowed-tools', label)
  for (const field of [name, description, tools]) if (typeof field === 'object' && 'error' in field) return field
  if (typeof name !== 'string' || !NAME.test(name) || name.length > MAX_NAME) {
    return { error: `${label} names the skill ${JSON.stringify(name)}; a skill name uses lowercase letters, digits and hyphens (at most ${MAX_NAME}).` }
  }
  if (typeof description !== 'string') {
    return { error: `${label} has no description, so the model could never choose it; add a description: line saying what it does and when to use it.` }
  }
  const oneLine = description.replace(/\s+/g, ' ')
  return {
    name,
    description: oneLine.length > MAX_DESCRIPTION ? `${oneLine.slice(0, MAX_DESCRIPTION - 1)}…` : oneLine,
    scope: folder.scope,
    dir,
    allowedTools: tools as string[],
    body: matter.body.replace(/^\r?\n/, ''),
  }
}

