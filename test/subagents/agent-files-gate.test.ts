import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadAgentFiles } from '../../src/prompt-files/agents/agent-files.js'

let base: string
let cwd: string
let home: string
let userHome: string
let outside: string
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'rein-agent-gate-')))
  cwd = join(base, 'project')
  home = join(base, 'rein')
  userHome = join(base, 'user')
  outside = join(base, 'outside')
  for (const dir of [join(cwd, '.claude', 'agents'), home, userHome, outside]) mkdirSync(dir, { recursive: true })
  writeFileSync(join(outside, 'spy.md'), agentText('spy', 'SECRET'))
})
afterEach(() => rmSync(base, { recursive: true, force: true }))

function agentText(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\nDo it.\n`
}
const agents = join('.claude', 'agents')
const load = (refuses?: (p: string) => string | undefined) => loadAgentFiles({ cwd, home, userHome, ...(refuses ? { refuses } : {}) })

describe('agent files pass the read gate', () => {
  it('an agent file linked out of its folder is one problem and no agent', () => {
    symlinkSync(join(outside, 'spy.md'), join(cwd, agents, 'spy.md'))
    const { agents: loaded, problems } = load()
    expect(loaded).toEqual([])
    expect(problems).toEqual([`The agent file ${join(cwd, agents, 'spy.md')} was not read: it is a link to ${join(outside, 'spy.md')}, outside ${join(cwd, agents)}; it was not loaded.`])
  })

  it('an agent file linked to another file in its folder loads', () => {
    writeFileSync(join(cwd, agents, 'reviewer.txt'), agentText('reviewer', 'Reviews'))
    symlinkSync('reviewer.txt', join(cwd, agents, 'reviewer.md'))
    expect(load().agents.map((a) => a.name)).toEqual(['reviewer'])
  })

  it('a FIFO named like an agent file is one problem, without waiting for a writer', () => {
    execFileSync('mkfifo', [join(cwd, agents, 'spy.md')])
    expect(load().problems).toEqual([`The agent file ${join(cwd, agents, 'spy.md')} was not read: it is a named pipe (FIFO), not a file; it was not loaded.`])
  })

  it('a linked agents folder is one problem, and none of its files is read', () => {
    rmSync(join(cwd, '.claude'), { recursive: true })
    mkdirSync(join(cwd, '.claude'))
    symlinkSync(outside, join(cwd, agents))
    const { agents: loaded, problems } = load()
    expect(loaded).toEqual([])
    expect(problems).toEqual([`The agents folder ${join(cwd, agents)} was not read: it is a link to ${outside}, outside ${join(cwd, agents)}; its agents were not loaded.`])
  })

  it('without a refusal of its own, applies the Read deny rules of the settings files', () => {
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(./.claude/agents/private.md)'] } }))
    writeFileSync(join(cwd, agents, 'private.md'), agentText('private', 'Private'))
    expect(load().problems).toEqual([`The agent file ${join(cwd, agents, 'private.md')} was not read: the permission rule Read(./.claude/agents/private.md) covers it; it was not loaded.`])
  })

  it('asks the refusal it was given about each agent file', () => {
    writeFileSync(join(cwd, agents, 'reviewer.md'), agentText('reviewer', 'Reviews'))
    const asked: string[] = []
    load((p) => {
      asked.push(p)
      return undefined
    })
    expect(asked).toEqual([join(cwd, agents, 'reviewer.md')])
  })
})
