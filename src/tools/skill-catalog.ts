import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'

// The skills the `skill` tool serves, as the tool sees them. The tools own this seam (DESIGN section 7): src/skills
// discovers the skills and fills `SKILLS_KEY` in the tool state.

/**
 * Agent Skills: a folder holding `SKILL.md` (YAML frontmatter `name`, `description`, optional `allowed-tools`, then
 * the instructions) and any other files the instructions point to. The model is told only names and descriptions;
 * the `skill` tool hands it one skill's instructions when it asks.
 */
export interface Skill {
  /** The id the model loads it by: the frontmatter's `name`, or the folder's name when that is a display name. */
  name: string
  /** The frontmatter's `name` when it is no id (`Agent Development`). */
  displayName?: string
  description: string
  scope: 'user' | 'project'
  /** The skill's folder, absolute. */
  dir: string
  /** Tool rules the skill pre-approves while it is active (a trusted workspace, or a user-level skill). */
  allowedTools: string[]
  /** The instructions after the frontmatter, verbatim. */
  body: string
}

/** Where the tools find the skills the listing last offered (`ToolState.extra`), as a function returning them. */
export const SKILLS_KEY = 'skills.catalog'

export interface SkillCatalog {
  /** In precedence order. */
  skills: Skill[]
  /** One sentence per skill folder that could not be loaded. */
  problems: string[]
}

/** Files below a skill's folder other than SKILL.md, relative to it, at most `limit` (hidden files left out). */
export function skillFiles(skill: Skill, limit = 50): { files: string[]; more: number } {
  const files: string[] = []
  let more = 0
  const walk = (dir: string, depth: number): void => {
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))
    } catch {
      // An unreadable subfolder is left out of the listing; the model can still try to read what SKILL.md names.
      return
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (depth < 4) walk(path, depth + 1)
      } else if (path !== join(skill.dir, 'SKILL.md')) {
        if (files.length < limit) files.push(relative(skill.dir, path))
        else more++
      }
    }
  }
  walk(skill.dir, 0)
  return { files, more }
}
