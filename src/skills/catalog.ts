import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { parseFrontmatter, textField, toolRulesField } from './frontmatter.js'
import type { Skill, SkillCatalog } from '../tools/skill-catalog.js'

export interface SkillFolder {
  dir: string
  scope: 'user' | 'project'
}

/**
 * Where skills are looked for, first match of a name wins: the user's own folders before the workspace's (a
 * repository cannot replace a skill the user relies on), Rein's before Claude Code's, and the cross-tool `.agents`
 * folder last.
 */
export function skillFolders(options: { cwd: string; reinHome: string; userHome: string }): SkillFolder[] {
  return [
    { dir: join(options.reinHome, 'skills'), scope: 'user' },
    { dir: join(options.userHome, '.claude', 'skills'), scope: 'user' },
    { dir: join(options.cwd, '.rein', 'skills'), scope: 'project' },
    { dir: join(options.cwd, '.claude', 'skills'), scope: 'project' },
    { dir: join(options.cwd, '.agents', 'skills'), scope: 'project' },
  ]
}

/** Names as the Agent Skills format allows them: lowercase letters, digits and single hyphens, at most 64. */
const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/
const MAX_NAME = 64
const MAX_DESCRIPTION = 1024

/** Parsed SKILL.md files by path, kept while the file's size and mtime are unchanged, so re-reading the folders is cheap. */
const parsed = new Map<string, { stamp: string; result: Skill | { error: string } }>()

export function loadSkills(folders: readonly SkillFolder[], cwd: string): SkillCatalog {
  const skills: Skill[] = []
  const problems: string[] = []
  const names = new Set<string>()
  for (const folder of folders) {
    for (const dir of subfolders(folder.dir)) {
      const loaded = loadSkill(dir, folder, cwd)
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

function loadSkill(dir: string, folder: SkillFolder, cwd: string): Skill | { error: string } | undefined {
  const file = join(dir, 'SKILL.md')
  let stamp: string
  try {
    const info = statSync(file)
    if (!info.isFile()) return undefined
    stamp = `${info.size}:${info.mtimeMs}:${folder.scope}`
  } catch {
    // A folder without SKILL.md is not a skill (it may hold something else entirely).
    return undefined
  }
  const cached = parsed.get(file)
  if (cached?.stamp === stamp) return cached.result
  const result = parseSkill(file, dir, folder, cwd)
  parsed.set(file, { stamp, result })
  return result
}

function parseSkill(file: string, dir: string, folder: SkillFolder, cwd: string): Skill | { error: string } {
  const shown = folder.scope === 'user' ? file : relative(cwd, file)
  const label = `The skill file ${shown}`
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    return { error: `${label} could not be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); the other skills still load.` }
  }
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

