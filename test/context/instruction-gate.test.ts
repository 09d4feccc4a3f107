import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { WORKSPACE_CONTEXT, workspaceInstructions } from '../../src/context/workspace.js'
import { FakeAgent } from './fake-agent.js'

let base: string
let home: string
let repo: string
let outside: string

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'rein-ws-gate-')))
  home = join(base, 'home')
  repo = join(base, 'repo')
  outside = join(base, 'outside')
  for (const dir of [home, join(repo, '.git'), join(repo, 'sub'), outside]) mkdirSync(dir, { recursive: true })
  writeFileSync(join(outside, 'secret.txt'), 'SECRET\n')
})
afterEach(() => rmSync(base, { recursive: true, force: true }))

const texts = (agent: FakeAgent) => agent.textsFrom(WORKSPACE_CONTEXT).join('\n')
const linkedOut = (file: string) => `The instruction file ${file} was not read: it is a link to ${join(outside, 'secret.txt')}, outside ${repo}.`

describe('instruction files pass the read gate', () => {
  it('leaves out a file linked out of the project and tells the user once, though every step reads it again', async () => {
    writeFileSync(join(repo, 'AGENTS.md'), 'Root rule.\n')
    symlinkSync(join(outside, 'secret.txt'), join(repo, 'CLAUDE.md'))
    const agent = await FakeAgent.open(repo)
    const producer = workspaceInstructions({ home, refuses: () => undefined })
    await agent.step([producer], 'one')
    await agent.step([producer], 'two')
    expect(texts(agent)).toContain('Root rule.')
    expect(texts(agent)).not.toContain('SECRET')
    expect(agent.notices).toEqual([linkedOut(join(repo, 'CLAUDE.md'))])
  })

  it('tells the model a file it was shown is gone once it is swapped for a link out', async () => {
    writeFileSync(join(repo, 'AGENTS.md'), 'Root rule.\n')
    const agent = await FakeAgent.open(repo)
    const producer = workspaceInstructions({ home, refuses: () => undefined })
    await agent.step([producer], 'one')
    unlinkSync(join(repo, 'AGENTS.md'))
    symlinkSync(join(outside, 'secret.txt'), join(repo, 'AGENTS.md'))
    await agent.step([producer], 'two')
    expect(texts(agent)).not.toContain('SECRET')
    expect(agent.session.surface().at(-1)).toMatchObject({ data: { meta: { block: 'update', files: [{ path: join(repo, 'AGENTS.md'), status: 'removed' }] } } })
    expect(agent.notices).toEqual([linkedOut(join(repo, 'AGENTS.md'))])
  })

  it('leaves out a directory’s instructions linked out, found after a read there', async () => {
    writeFileSync(join(repo, 'sub', 'notes.txt'), 'notes\n')
    symlinkSync(join(outside, 'secret.txt'), join(repo, 'sub', 'AGENTS.md'))
    const agent = await FakeAgent.open(repo)
    const producer = workspaceInstructions({ home, refuses: () => undefined })
    await agent.step([producer], 'one')
    expect(await agent.tool(producer, 'read', { file_path: join(repo, 'sub', 'notes.txt') })).toEqual([])
    expect(agent.notices).toEqual([linkedOut(join(repo, 'sub', 'AGENTS.md'))])
  })

  it('asks the refusal it was given about every file, the user-wide one included', async () => {
    writeFileSync(join(home, 'AGENTS.md'), 'User rule.\n')
    writeFileSync(join(repo, 'AGENTS.md'), 'Root rule.\n')
    const asked: string[] = []
    const agent = await FakeAgent.open(repo)
    const producer = workspaceInstructions({
      home,
      refuses: (p) => {
        asked.push(p)
        return p === join(repo, 'AGENTS.md') ? 'the permission rule Read(./AGENTS.md) covers it' : undefined
      },
    })
    await agent.step([producer], 'one')
    expect(asked).toEqual([join(home, 'AGENTS.md'), join(repo, 'AGENTS.md')])
    expect(texts(agent)).toContain('User rule.')
    expect(texts(agent)).not.toContain('Root rule.')
    expect(agent.notices).toEqual([`The instruction file ${join(repo, 'AGENTS.md')} was not read: the permission rule Read(./AGENTS.md) covers it.`])
  })

  it('without a refusal of its own (a subagent’s producer), applies the Read deny rules of the settings files', async () => {
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(./private/**)'] } }))
    mkdirSync(join(repo, 'private'))
    writeFileSync(join(repo, 'private', 'rules.md'), 'PRIVATE\n')
    symlinkSync('private/rules.md', join(repo, 'AGENTS.md'))
    const agent = await FakeAgent.open(repo)
    await agent.step([workspaceInstructions({ home })], 'one')
    expect(texts(agent)).not.toContain('PRIVATE')
    expect(agent.notices).toEqual([`The instruction file ${join(repo, 'AGENTS.md')} was not read: the permission rule Read(./private/**) covers it.`])
  })

  it('reads CLAUDE.md linked to AGENTS.md once, as a duplicate of it, with no notice', async () => {
    writeFileSync(join(repo, 'AGENTS.md'), 'Shared rule.\n')
    symlinkSync('AGENTS.md', join(repo, 'CLAUDE.md'))
    const agent = await FakeAgent.open(repo)
    const entered = await agent.step([workspaceInstructions({ home, refuses: () => undefined })], 'one')
    expect(texts(agent).split('Shared rule.').length - 1).toBe(1)
    expect(entered[1].meta).toMatchObject({ files: [{ path: join(repo, 'AGENTS.md'), status: 'shown' }, { path: join(repo, 'CLAUDE.md'), status: 'duplicate' }] })
    expect(agent.notices).toEqual([])
  })
})
