import { readdirSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { gateDirectory, readGated, skippedNotice, type GateFolder, type Refusal } from '../../fs/read-gate.js'
import { ignoredFields, ignoredFieldsNotice, parseFrontmatter, textField, toolRulesField } from '../frontmatter.js'
import type { Skill, SkillCatalog } from '../../tools/skill-catalog.js'
import type { PromptRoot } from '../roots.js'

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
 * folder last, then the source roots' (a plugin's `skills/`, which may not link out of the plugin).
 */
export function skillFolders(options: { cwd: string; reinHome: string; userHome: string; roots?: readonly PromptRoot[] }): SkillFolder[] {
  const project = (dir: string): SkillFolder => ({ dir, scope: 'project', base: options.cwd })
  return [
    { dir: join(options.reinHome, 'skills'), scope: 'user' },
    { dir: join(options.userHome, '.claude', 'skills'), scope: 'user' },
    project(join(options.cwd, '.rein', 'skills')),
    project(join(options.cwd, '.claude', 'skills')),
    project(join(options.cwd, '.agents', 'skills')),
    ...(options.roots ?? []).flatMap((root) => root.skills.map((dir): SkillFolder => ({ dir, scope: 'user', base: root.base }))),
  ]
}

/** Names as the Agent Skills format allows them: lowercase letters, digits and single hyphens, at most 64. */
const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/
/** A folder's name that may serve as a skill's id when its `name` is a display name (`Agent Development`). */
const FOLDER_ID = /^[A-Za-z0-9][\w.-]*$/
const MAX_NAME = 64
/** The frontmatter fields Rein reads from a skill; any other is ignored (see `ignoredFieldsNotice`). */
export const SKILL_FIELDS = ['name', 'description', 'allowed-tools'] as const
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
  const ignored = new Map<string, number>()
  const count = (fields: string[]) => fields.forEach((f) => ignored.set(f, (ignored.get(f) ?? 0) + 1))
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
      const loaded = loadSkill(dir, folder, gate, cwd, refuses, count)
      if (!loaded) continue
      if ('error' in loaded) problems.push(loaded.error)
      else if (!names.has(loaded.name)) {
        names.add(loaded.name)
        skills.push(loaded)
      } else {
        // One folder holding two skills of one name is a mistake to point out; an earlier folder's skill replacing a
        // later one's is the precedence above.
        const first = skills.find((s) => s.name === loaded.name)!
        if (dirname(first.dir) === dirname(dir)) problems.push(`The skill folder ${shown} is not used: ${folder.scope === 'user' ? first.dir : relative(cwd, first.dir)} already defines the skill ${loaded.name}.`)
      }
    }
  }
  const notice = ignoredFieldsNotice('skill', ignored)
  return { skills, problems: notice ? [...problems, notice] : problems }
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

function loadSkill(dir: string, folder: SkillFolder, gate: GateFolder, cwd: string, refuses: Refusal, ignored: (fields: string[]) => void): Skill | { error: string } | undefined {
  const file = join(dir, 'SKILL.md')
  const shown = folder.scope === 'user' ? file : relative(cwd, file)
  const read = readGated(file, { folder: gate, refuses })
  // A folder without SKILL.md is not a skill (it may hold something else entirely).
  if (read.kind === 'absent') return undefined
  if (read.kind === 'skipped') return { error: `${skippedNotice('skill file', shown, read.reason).replace(/\.$/, '')}; the other skills still load.` }
  return parseSkill(read.bytes.toString('utf8'), shown, dir, folder, ignored)
}

/**
 * One `SKILL.md`. A `name` that is no skill name (`Agent Development`, as published plugins write it) is kept as the
 * display name, and the folder's name is the id the model calls the skill by.
 */
function parseSkill(text: string, shown: string, dir: string, folder: SkillFolder, ignored: (fields: string[]) => void): Skill | { error: string } {
  const label = `The skill file ${shown}`
  const matter = parseFrontmatter(text, label)
  if ('error' in matter) return { error: `${matter.error.replace(/\.$/, '')}; the other skills still load.` }
  const named = textField(matter, 'name', label)
  const description = textField(matter, 'description', label)
  const tools = toolRulesField(matter.data, 'allowed-tools', label)
  for (const field of [named, description, tools]) if (typeof field === 'object' && 'error' in field) return field
  const folderName = dir.split(/[\\/]/).pop()!
  const fits = (id: unknown): id is string => typeof id === 'string' && id.length <= MAX_NAME
  const name = fits(named) && NAME.test(named) ? named : fits(folderName) && FOLDER_ID.test(folderName) ? folderName : undefined
  if (!name) {
    return { error: `${label} names the skill ${JSON.stringify(named)} in a folder whose name cannot be its id either; name the folder with letters, digits, ., - and _ (at most ${MAX_NAME}).` }
  }
  ignored(ignoredFields(matter, SKILL_FIELDS))
  if (typeof description !== 'string') {
    return { error: `${label} has no description, so the model could never choose it; add a description: line saying what it does and when to use it.` }
  }
  const oneLine = description.replace(/\s+/g, ' ')
  return {
    name,
    ...(typeof named === 'string' && named !== name ? { displayName: named } : {}),
    description: oneLine.length > MAX_DESCRIPTION ? `${oneLine.slice(0, MAX_DESCRIPTION - 1)}…` : oneLine,
    scope: folder.scope,
    dir,
    allowedTools: tools as string[],
    body: matter.body.replace(/^\r?\n/, ''),
  }
}

