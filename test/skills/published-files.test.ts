import { cpSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadAgentFiles } from '../../src/prompt-files/agents/agent-files.js'
import { commandFolders, loadCommands } from '../../src/prompt-files/commands/catalog.js'
import { expandCommand, shellRuns } from '../../src/prompt-files/commands/expand.js'
import { AGENT_LISTING_CAP, estimateTokens, PROMPT_LISTING_TOKEN_BUDGET } from '../../src/prompt-files/listing-budget.js'
import { loadSkills } from '../../src/prompt-files/skills/catalog.js'
import { skillsReport } from '../../src/prompt-files/skills/report.js'
import { skillsListingText } from '../../src/prompt-files/skills/listing.js'
import { promptFileGrants } from '../../src/prompt-files/trust-report.js'
import { BUILTIN_AGENTS } from '../../src/subagents/agent-types.js'
import { agentListing, createTaskTool } from '../../src/subagents/task-tool.js'
import type { Skill } from '../../src/tools/skill-catalog.js'

// Small files in the shapes plugins and public repositories publish (test/fixtures/published), written for Rein.
const PUBLISHED = join(import.meta.dirname, '../fixtures/published')
const noRules = () => undefined

function workspace(): { root: string; cwd: string; home: string; userHome: string } {
  const root = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), 'rein-published-'))
  const places = { root, cwd: join(root, 'project'), home: join(root, 'rein-home'), userHome: join(root, 'user') }
  for (const dir of [places.cwd, places.home, places.userHome]) mkdirSync(dir, { recursive: true })
  return places
}

function withAgents(extra: Record<string, string> = {}) {
  const ws = workspace()
  const dir = join(ws.cwd, '.claude', 'agents')
  cpSync(join(PUBLISHED, 'plugin', 'agents'), dir, { recursive: true })
  for (const [name, text] of Object.entries(extra)) writeFileSync(join(dir, name), text)
  return { ws, dir, loaded: loadAgentFiles({ ...ws, refuses: noRules }) }
}

describe('agent files as they are published', () => {
  it('a description running over unindented <example> blocks with user:/assistant: lines loads whole; its tools map to Rein names', () => {
    const { loaded } = withAgents()
    const checker = loaded.agents.find((a) => a.name === 'code-checker')!
    expect(checker.description).toMatch(/^Use this agent when a piece of work is finished/)
    expect(checker.description).toContain('<example>\nContext: The user has just finished a parser module.\nuser: "I think the tokenizer is done"')
    expect(checker.description).toContain('assistant: "The code-checker agent will go through the change."\n</example>')
    expect(checker.tools).toEqual(['read', 'grep', 'glob'])
    expect(checker).not.toHaveProperty('model')
    expect(checker.prompt).toMatch(/^You check finished work\./)
  })

  it('a name with a dot and a block-scalar description load as written', () => {
    const { loaded } = withAgents()
    expect(loaded.agents.find((a) => a.name === 'foo.bar')).toMatchObject({
      description: 'Answers questions about the foo.bar module.\nUse it for anything under src/foo.',
      tools: ['read', 'grep'],
    })
  })

  it('a display name keeps the file name as id, and a field no format knows is named once', () => {
    const { loaded } = withAgents({ 'other.md': '---\nname: other\ndescription: d\ntypo-field: 1\ncolor: red\n---\nGo.' })
    expect(loaded.agents.find((a) => a.name === 'Release-Notes')).toMatchObject({ displayName: 'Release Notes Writer' })
    // `color` is Claude Code's and ignored quietly; `typo-field` is no format's, said once for both files.
    expect(loaded.problems).toEqual(['Rein ignored agent file fields it does not know: typo-field (2 files).'])
  })

  it('frontmatter that is not YAML is one sentence and the other agents load', () => {
    const { ws, dir } = withAgents()
    cpSync(join(PUBLISHED, 'hostile', 'not-yaml.md'), join(dir, 'not-yaml.md'))
    const loaded = loadAgentFiles({ ...ws, refuses: noRules })
    expect(loaded.problems).toContainEqual(expect.stringMatching(new RegExp(`^The agent file ${join(dir, 'not-yaml.md')} has frontmatter that is not valid YAML \\(.+\\); fix the fields between the --- lines; it was not loaded\\.$`)))
    expect(loaded.agents.map((a) => a.name).sort()).toEqual(['Release-Notes', 'code-checker', 'foo.bar'])
  })

  it('a 1 MB description loads but its listing entry stays short; a file over the cap is refused in one sentence', () => {
    const huge = `Reviews everything. ${'word '.repeat(200_000)}`
    const { loaded, dir } = withAgents({
      'huge.md': `---\nname: huge\ndescription: ${huge}\n---\nGo.`,
      'over.md': `---\nname: over\ndescription: ${'x'.repeat(1024 * 1024)}\n---\nGo.`,
    })
    expect(loaded.agents.find((a) => a.name === 'huge')!.description.length).toBeGreaterThan(1_000_000)
    expect(loaded.agents.some((a) => a.name === 'over')).toBe(false)
    expect(loaded.problems.some((p) => p.startsWith(`Skipped the agent file ${join(dir, 'over.md')}`) || p.includes('over.md'))).toBe(true)
    const listing = agentListing([...BUILTIN_AGENTS, ...loaded.agents])
    expect(listing.tokens).toBeLessThanOrEqual(AGENT_LISTING_CAP)
    expect(listing.text).toMatch(/huge \(Reviews everything\. word word [^)]{0,160}…\)/)
  })

  it('an agent file linked to a file outside its folder is refused by the read gate', () => {
    const { ws } = withAgents()
    const outside = join(ws.root, 'elsewhere.md')
    writeFileSync(outside, '---\nname: sneaky\ndescription: d\n---\nGo.')
    symlinkSync(outside, join(ws.cwd, '.claude', 'agents', 'sneaky.md'))
    const loaded = loadAgentFiles({ ...ws, refuses: noRules })
    expect(loaded.agents.some((a) => a.name === 'sneaky')).toBe(false)
    expect(loaded.problems.some((p) => p.includes('sneaky.md') && p.endsWith('it was not loaded.'))).toBe(true)
  })

  it('two files of one folder naming one agent: the first wins and the second is named', () => {
    const { loaded, dir } = withAgents({ 'zz-copy.md': '---\nname: foo.bar\ndescription: another\n---\nGo.' })
    expect(loaded.agents.find((a) => a.name === 'foo.bar')!.description).toMatch(/^Answers questions/)
    expect(loaded.problems).toContain(`The agent file ${join(dir, 'zz-copy.md')} is not used: ${join(dir, 'foo.bar.md')} already defines the agent foo.bar.`)
  })
})

describe('skills as plugins publish them', () => {
  it('`name: Agent Development` loads under its folder name, the display name kept, the folded description on one line', () => {
    const ws = workspace()
    cpSync(join(PUBLISHED, 'plugin', 'skills'), join(ws.cwd, '.claude', 'skills'), { recursive: true })
    const catalog = loadSkills([{ dir: join(ws.cwd, '.claude', 'skills'), scope: 'project', base: ws.cwd }], ws.cwd, noRules)
    expect(catalog.problems).toEqual([])
    expect(catalog.skills).toMatchObject([
      { name: 'agent-development', displayName: 'Agent Development', description: 'This skill applies when the user wants to write a subagent file, pick its tools or word its trigger description.' },
    ])
    expect(skillsReport(ws.cwd, { REIN_HOME: ws.home, HOME: ws.userHome })).toMatch(/^agent-development — Agent Development \(project, /)
  })

  it('a SKILL.md linked out of the workspace is refused; two folders naming one skill: the second is named', () => {
    const ws = workspace()
    const dir = join(ws.cwd, '.rein', 'skills')
    for (const name of ['a-one', 'b-two', 'linked']) mkdirSync(join(dir, name), { recursive: true })
    writeFileSync(join(dir, 'a-one', 'SKILL.md'), '---\nname: same\ndescription: first\n---\nx')
    writeFileSync(join(dir, 'b-two', 'SKILL.md'), '---\nname: same\ndescription: second\n---\nx')
    writeFileSync(join(ws.root, 'outside.md'), '---\nname: linked\ndescription: d\n---\nx')
    symlinkSync(join(ws.root, 'outside.md'), join(dir, 'linked', 'SKILL.md'))
    const catalog = loadSkills([{ dir, scope: 'project', base: ws.cwd }], ws.cwd, noRules)
    expect(catalog.skills.map((s) => `${s.name}: ${s.description}`)).toEqual(['same: first'])
    expect(catalog.problems).toContain('The skill folder .rein/skills/b-two is not used: .rein/skills/a-one already defines the skill same.')
    expect(catalog.problems.some((p) => p.includes('.rein/skills/linked/SKILL.md') && p.endsWith('the other skills still load.'))).toBe(true)
  })
})

describe('commands with ```! blocks', () => {
  it('the fenced block and the inline !`cmd` are both shell the command runs, and both are trust grants in a workspace', () => {
    const ws = workspace()
    cpSync(join(PUBLISHED, 'plugin', 'commands'), join(ws.cwd, '.claude', 'commands'), { recursive: true })
    const command = loadCommands(commandFolders({ cwd: ws.cwd, reinHome: ws.home, userHome: ws.userHome }), noRules).find('status')!
    expect(shellRuns(command.body)).toEqual(['git branch --show-current', 'git log --oneline -3\ngit status --short'])
    expect(promptFileGrants(ws).map((g) => g.label)).toEqual([
      'command /status running "git branch --show-current", "git log --oneline -3\\ngit status --short"',
      'command /status allowing Bash(git status:*), Bash(git log:*)',
    ])
  })

  it('expands a ```! block to its output where it stood, judged like !`cmd`; untrusted, it is refused in one sentence', async () => {
    const ws = workspace()
    const body = 'Inline: !`echo one`\n\n```!\necho two\necho three\n```\n\nDone.'
    const command = { name: 'c', scope: 'project' as const, file: join(ws.cwd, 'c.md'), description: 'c', allowedTools: [], body }
    const judged: string[] = []
    const judge = async (call: { input: Record<string, string> }) => {
      judged.push(call.input.command)
      return { allowed: true as const }
    }
    const expanded = await expandCommand(command, '', { cwd: ws.cwd, mayRun: true, judge, env: process.env })
    expect(expanded).toEqual({ text: 'Inline: one\n\ntwo\nthree\n\nDone.' })
    expect(judged).toEqual(['echo one', 'echo two\necho three'])
    const refused = await expandCommand(command, '', { cwd: ws.cwd, mayRun: false, judge, env: process.env })
    expect(refused).toEqual({ error: expect.stringMatching(/^\/c runs shell commands .* only in a trusted workspace/) })
  })
})

describe('one listing budget for agents and skills', () => {
  it('156 agents and 31 skills: each listing names what it left out, and together they stay inside the budget', () => {
    const agents = Array.from({ length: 156 }, (_, i) => ({ ...BUILTIN_AGENTS[0], name: `agent-${i}`, description: `Reviews module ${i} and reports what it finds in it` }))
    const agentsPart = agentListing([...BUILTIN_AGENTS, ...agents])
    const skills: Skill[] = Array.from({ length: 31 }, (_, i) => ({ name: `skill-${i}`, description: `${'Does a careful job '.repeat(12)}${i}`, scope: 'user', dir: `/s/${i}`, allowedTools: [], body: '' }))
    const skillsPart = skillsListingText(skills, PROMPT_LISTING_TOKEN_BUDGET - agentsPart.tokens)!
    expect(agentsPart.tokens + estimateTokens(skillsPart.text)).toBeLessThanOrEqual(PROMPT_LISTING_TOKEN_BUDGET)
    expect(agentsPart.text).toMatch(/\d+ more agents, not listed: agent-\d+, /)
    expect(createTaskTool([...BUILTIN_AGENTS, ...agents]).description).toContain(agentsPart.text)
    const left = 31 - skillsPart.listed.length
    expect(left).toBeGreaterThan(0)
    expect(skillsPart.text).toContain(`${left} more skills, not listed: skill-${skillsPart.listed.length}`)
  })

  it('what the agents leave unused goes to the skills', () => {
    const skills: Skill[] = Array.from({ length: 60 }, (_, i) => ({ name: `skill-${i}`, description: 'd'.repeat(150), scope: 'user', dir: `/s/${i}`, allowedTools: [], body: '' }))
    const few = skillsListingText(skills, PROMPT_LISTING_TOKEN_BUDGET - agentListing(BUILTIN_AGENTS).tokens)!
    const many = skillsListingText(skills, PROMPT_LISTING_TOKEN_BUDGET - AGENT_LISTING_CAP)!
    expect(few.listed.length).toBeGreaterThan(many.listed.length)
  })
})
