import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadSkills, skillFolders } from '../../src/prompt-files/skills/catalog.js'
import { skillsReport } from '../../src/prompt-files/skills/report.js'

let base: string
let cwd: string
let reinHome: string
let userHome: string
let outside: string
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'rein-skill-gate-')))
  cwd = join(base, 'project')
  reinHome = join(base, 'rein')
  userHome = join(base, 'user')
  outside = join(base, 'outside')
  for (const dir of [join(cwd, '.claude', 'skills'), reinHome, userHome, join(outside, 'leak')]) mkdirSync(dir, { recursive: true })
  writeFileSync(join(outside, 'leak', 'SKILL.md'), skillText('leak', 'SECRET'))
})
afterEach(() => rmSync(base, { recursive: true, force: true }))

function skillText(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`
}
const noRules = () => undefined
const load = (refuses: (p: string) => string | undefined = noRules) => loadSkills(skillFolders({ cwd, reinHome, userHome }), cwd, refuses)
const projectSkills = join('.claude', 'skills')

describe('skill files pass the read gate', () => {
  it('a SKILL.md linked out of its skill’s folder is one problem and no skill', () => {
    mkdirSync(join(cwd, projectSkills, 'leak'))
    symlinkSync(join(outside, 'leak', 'SKILL.md'), join(cwd, projectSkills, 'leak', 'SKILL.md'))
    const { skills, problems } = load()
    expect(skills).toEqual([])
    expect(problems).toEqual([
      `The skill file ${join(projectSkills, 'leak', 'SKILL.md')} was not read: it is a link to ${join(outside, 'leak', 'SKILL.md')}, outside ${join(cwd, projectSkills, 'leak')}; the other skills still load.`,
    ])
  })

  it('a workspace’s skill folder linked out of the workspace is one problem and no skill', () => {
    symlinkSync(join(outside, 'leak'), join(cwd, projectSkills, 'leak'))
    const { skills, problems } = load()
    expect(skills).toEqual([])
    expect(problems).toEqual([`The skill folder ${join(projectSkills, 'leak')} was not read: it is a link to ${join(outside, 'leak')}, outside ${join(cwd, projectSkills)}; the other skills still load.`])
  })

  it('a user’s skill folder linked in from elsewhere loads, but a SKILL.md in it linked further out does not', () => {
    mkdirSync(join(reinHome, 'skills'))
    mkdirSync(join(outside, 'notes'))
    writeFileSync(join(outside, 'notes', 'SKILL.md'), skillText('notes', 'Takes notes'))
    symlinkSync(join(outside, 'notes'), join(reinHome, 'skills', 'notes'))
    mkdirSync(join(reinHome, 'skills', 'sly'))
    symlinkSync(join(outside, 'leak', 'SKILL.md'), join(reinHome, 'skills', 'sly', 'SKILL.md'))
    const { skills, problems } = load()
    expect(skills.map((s) => s.name)).toEqual(['notes'])
    expect(problems).toEqual([
      `The skill file ${join(reinHome, 'skills', 'sly', 'SKILL.md')} was not read: it is a link to ${join(outside, 'leak', 'SKILL.md')}, outside ${join(reinHome, 'skills', 'sly')}; the other skills still load.`,
    ])
  })

  it('asks the read guard about each SKILL.md, and a hard link to a denied file is refused by it', () => {
    mkdirSync(join(cwd, projectSkills, 'leak'))
    linkSync(join(outside, 'leak', 'SKILL.md'), join(cwd, projectSkills, 'leak', 'SKILL.md'))
    const refuses = (p: string) => (p.endsWith(join('leak', 'SKILL.md')) ? 'it is a hard link to a file the permission rule Read(~/x/**) covers' : undefined)
    expect(load(refuses).problems).toEqual([
      `The skill file ${join(projectSkills, 'leak', 'SKILL.md')} was not read: it is a hard link to a file the permission rule Read(~/x/**) covers; the other skills still load.`,
    ])
  })

  it('/skills, which runs without an agent, names a skill the gate refused under “Not loaded”', () => {
    mkdirSync(join(cwd, projectSkills, 'leak'))
    symlinkSync(join(outside, 'leak', 'SKILL.md'), join(cwd, projectSkills, 'leak', 'SKILL.md'))
    const report = skillsReport(cwd, { REIN_HOME: reinHome, HOME: userHome })
    expect(report).toContain('Not loaded:')
    expect(report).toContain(`The skill file ${join(projectSkills, 'leak', 'SKILL.md')} was not read`)
    expect(report).not.toContain('SECRET')
  })
})
