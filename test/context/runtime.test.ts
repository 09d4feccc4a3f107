import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gitState, parseStatus } from '../../src/context/git-state.js'
import { RUNTIME_CONTEXT, localDate, runtimeContext, runtimeText } from '../../src/context/runtime.js'
import { FakeAgent } from './fake-agent.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rein-rt-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const fixedNow = () => new Date(2026, 2, 7, 10, 30)

function git(...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, stdio: 'ignore' })
}

describe('runtime facts text', () => {
  it('states the date, the permission mode with its meaning, and the git state in one block', () => {
    expect(runtimeText({ date: '2026-03-07', permissionMode: 'plan', git: { kind: 'repository', branch: 'main', dirty: true } })).toBe(
      [
        '<system-reminder>',
        'Current session facts (until a later reminder changes them):',
        '- Date: 2026-03-07',
        '- Permission mode: plan (read-only: explore and plan, and change nothing; tools that write or run commands are denied)',
        '- Git: branch main, uncommitted changes',
        '</system-reminder>',
      ].join('\n'),
    )
  })

  it('uses the local calendar date', () => {
    expect(localDate(new Date(2026, 0, 5, 23, 59))).toBe('2026-01-05')
  })
})

describe('git state', () => {
  it('reads branch and dirtiness from porcelain status', () => {
    expect(parseStatus('## main...origin/main [ahead 1]\n')).toEqual({ kind: 'repository', branch: 'main', dirty: false })
    expect(parseStatus('## feature/x\n M a.ts\n?? b.ts\n')).toEqual({ kind: 'repository', branch: 'feature/x', dirty: true })
    expect(parseStatus('## HEAD (no branch)\n')).toEqual({ kind: 'repository', branch: null, dirty: false })
    expect(parseStatus('## No commits yet on trunk\n')).toEqual({ kind: 'repository', branch: 'trunk', dirty: false })
  })

  it('reports a real repository: clean after a commit, dirty after an edit', async () => {
    git('init', '-q', '-b', 'trunk')
    writeFileSync(join(dir, 'a.txt'), 'a')
    git('add', '.')
    git('commit', '-q', '-m', 'first')
    expect(await gitState(dir)).toEqual({ kind: 'repository', branch: 'trunk', dirty: false })
    writeFileSync(join(dir, 'a.txt'), 'b')
    expect(await gitState(dir)).toEqual({ kind: 'repository', branch: 'trunk', dirty: true })
  })

  it('says there is no repository outside one', async () => {
    expect(await gitState(dir)).toEqual({ kind: 'none' })
  })
})

describe('the runtime-context producer', () => {
  it('enters its facts after the prompt on the first step', async () => {
    const agent = await FakeAgent.open(dir)
    const entered = await agent.step([runtimeContext({ now: fixedNow })], 'hi')
    expect(entered.map((m) => m.source.kind)).toEqual(['user', 'runtime-context'])
    expect(agent.textsFrom(RUNTIME_CONTEXT)[0]).toBe(
      runtimeText({ date: '2026-03-07', permissionMode: 'default', git: { kind: 'none' } }),
    )
    expect(entered[1].meta).toEqual({ date: '2026-03-07', permissionMode: 'default', git: { kind: 'none' } })
  })

  it('enters nothing while the facts are unchanged', async () => {
    const agent = await FakeAgent.open(dir)
    const producer = runtimeContext({ now: fixedNow })
    await agent.step([producer], 'hi')
    for (let i = 0; i < 5; i++) expect(await agent.step([producer])).toEqual([])
    expect(agent.textsFrom(RUNTIME_CONTEXT)).toHaveLength(1)
  })

  it('enters one message when the permission mode changes', async () => {
    const agent = await FakeAgent.open(dir)
    const producer = runtimeContext({ now: fixedNow })
    await agent.step([producer], 'hi')
    agent.permissionMode = 'accept-edits'
    await agent.step([producer])
    await agent.step([producer])
    const texts = agent.textsFrom(RUNTIME_CONTEXT)
    expect(texts).toHaveLength(2)
    expect(texts[1]).toContain('- Permission mode: accept-edits')
  })

  it('enters a new message when the date changes', async () => {
    let now = new Date(2026, 2, 7, 23, 59)
    const agent = await FakeAgent.open(dir)
    const producer = runtimeContext({ now: () => now })
    await agent.step([producer], 'hi')
    now = new Date(2026, 2, 8, 0, 1)
    await agent.step([producer])
    expect(agent.textsFrom(RUNTIME_CONTEXT)[1]).toContain('- Date: 2026-03-08')
  })

  it('compares with the last message still on the surface, so after compaction the facts are told again', async () => {
    const agent = await FakeAgent.open(dir)
    const producer = runtimeContext({ now: fixedNow })
    await agent.step([producer], 'hi')
    agent.compact('summary')
    expect(await agent.step([producer])).toHaveLength(1)
  })

  it('returning to earlier facts is told again, since the last message says otherwise', async () => {
    const agent = await FakeAgent.open(dir)
    const producer = runtimeContext({ now: fixedNow })
    await agent.step([producer], 'hi')
    agent.permissionMode = 'plan'
    await agent.step([producer])
    agent.permissionMode = 'default'
    await agent.step([producer])
    expect(agent.textsFrom(RUNTIME_CONTEXT)).toHaveLength(3)
  })

  it('probes git at the first step and again only after a tool that could change the tree', async () => {
    git('init', '-q', '-b', 'trunk')
    writeFileSync(join(dir, 'a.txt'), 'a')
    git('add', '.')
    git('commit', '-q', '-m', 'first')
    const agent = await FakeAgent.open(dir)
    const producer = runtimeContext({ now: fixedNow })
    await agent.step([producer], 'hi')
    expect(agent.textsFrom(RUNTIME_CONTEXT)[0]).toContain('- Git: branch trunk, clean')
    writeFileSync(join(dir, 'a.txt'), 'changed')
    await agent.tool(producer, 'read', { file_path: join(dir, 'a.txt') })
    expect(await agent.step([producer])).toEqual([])
    await agent.tool(producer, 'bash', { command: 'true' })
    await agent.step([producer])
    expect(agent.textsFrom(RUNTIME_CONTEXT).at(-1)).toContain('- Git: branch trunk, uncommitted changes')
  })
})
