import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { WORKSPACE_CONTEXT, workspaceInstructions } from '../../src/context/workspace.js'
import { FakeAgent } from './fake-agent.js'
import { call } from '../permissions/calls.js'

let base: string
let home: string
let repo: string
let cwd: string

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'rein-ws-'))
  home = join(base, 'home')
  repo = join(base, 'repo')
  cwd = join(repo, 'app')
  mkdirSync(home, { recursive: true })
  mkdirSync(join(repo, '.git'), { recursive: true })
  mkdirSync(join(cwd, 'lib/deep'), { recursive: true })
  writeFileSync(join(home, 'AGENTS.md'), 'User rule.\n')
  writeFileSync(join(repo, 'AGENTS.md'), 'Root rule.\n')
  writeFileSync(join(cwd, 'CLAUDE.md'), 'App rule.\n')
})
afterEach(() => rmSync(base, { recursive: true, force: true }))

const texts = (agent: FakeAgent) => agent.textsFrom(WORKSPACE_CONTEXT)

describe('the workspace-context producer', () => {
  it('enters one block right after the first prompt, with every file broadest first', async () => {
    const agent = await FakeAgent.open(cwd)
    const entered = await agent.step([workspaceInstructions({ home })], 'hello')
    expect(entered.map((m) => m.type)).toEqual(['user/message', 'context/message'])
    expect(entered[1].source).toEqual({ kind: 'workspace-context' })
    const text = texts(agent)[0]
    expect(text.startsWith('<system-reminder>\nInstructions for this workspace follow')).toBe(true)
    const order = [join(home, 'AGENTS.md'), join(repo, 'AGENTS.md'), join(cwd, 'CLAUDE.md')].map((p) => text.indexOf(`Contents of ${p}`))
    expect(order.every((i) => i > 0)).toBe(true)
    expect([...order].sort((a, b) => a - b)).toEqual(order)
  })

  it('records each file path and digest in meta', async () => {
    const agent = await FakeAgent.open(cwd)
    const entered = await agent.step([workspaceInstructions({ home })], 'hello')
    expect(entered[1].meta).toEqual({
      block: 'workspace',
      files: [
        { path: join(home, 'AGENTS.md'), sha256: expect.stringMatching(/^[0-9a-f]{64}$/), status: 'shown' },
        { path: join(repo, 'AGENTS.md'), sha256: expect.stringMatching(/^[0-9a-f]{64}$/), status: 'shown' },
        { path: join(cwd, 'CLAUDE.md'), sha256: expect.stringMatching(/^[0-9a-f]{64}$/), status: 'shown' },
      ],
    })
  })

  it('keeps the entering messages given to it, in order, before its own', async () => {
    const agent = await FakeAgent.open(cwd)
    const producer = workspaceInstructions({ home })
    const decision = await producer.preStep?.(
      { turn: 1, step: 1 },
      [
        { type: 'user/message', content: [{ type: 'text', text: 'p' }], source: { kind: 'user' } },
        { type: 'context/message', content: [{ type: 'text', text: 'c' }], source: { kind: 'other' } },
      ],
      agent.api,
    )
    expect(decision?.action === 'enter' && decision.messages.map((m) => m.source.kind)).toEqual(['user', 'other', 'workspace-context'])
  })

  it('shows identical contents once, even under two names', async () => {
    symlinkSync(join(cwd, 'CLAUDE.md'), join(cwd, 'AGENTS.md'))
    const agent = await FakeAgent.open(cwd)
    const entered = await agent.step([workspaceInstructions({ home })], 'hi')
    expect(texts(agent)[0].match(/App rule\./g)).toHaveLength(1)
    expect(entered[1].meta).toMatchObject({ files: expect.arrayContaining([{ path: join(cwd, 'CLAUDE.md'), sha256: expect.any(String), status: 'duplicate' }]) })
  })

  it('shows a duplicate file itself once the file it duplicated is deleted', async () => {
    writeFileSync(join(cwd, 'AGENTS.md'), 'App rule.\n')
    const agent = await FakeAgent.open(cwd)
    const producer = workspaceInstructions({ home })
    await agent.step([producer], 'hi')
    unlinkSync(join(cwd, 'AGENTS.md'))
    await agent.step([producer])
    expect(texts(agent)[1]).toContain(`Contents of ${join(cwd, 'CLAUDE.md')} (new):\n\nApp rule.`)
    expect(texts(agent)[1]).toContain(`${join(cwd, 'AGENTS.md')} was deleted.`)
    expect(await agent.step([producer])).toEqual([])
  })

  it('drops the broadest files over the budget and says so', async () => {
    writeFileSync(join(home, 'AGENTS.md'), 'u'.repeat(300))
    const agent = await FakeAgent.open(cwd)
    await agent.step([workspaceInstructions({ home, budgetBytes: 100 })], 'hi')
    const text = texts(agent)[0]
    expect(text).not.toContain('uuuu')
    expect(text).toContain(`Left out to stay within the 0.1 KiB budget for instructions, broadest first: ${join(home, 'AGENTS.md')} (0.3 KiB).`)
    expect(text).toContain('Root rule.')
  })

  it('enters nothing when there are no instruction files', async () => {
    const empty = join(base, 'empty')
    mkdirSync(empty)
    const agent = await FakeAgent.open(empty)
    const entered = await agent.step([workspaceInstructions({ home: join(base, 'nohome') })], 'hi')
    expect(entered).toHaveLength(1)
  })

  it('enters nothing on later steps while the files are unchanged', async () => {
    const agent = await FakeAgent.open(cwd)
    const producer = workspaceInstructions({ home })
    await agent.step([producer], 'hi')
    expect(await agent.step([producer])).toEqual([])
    expect(await agent.step([producer])).toEqual([])
    expect(texts(agent)).toHaveLength(1)
  })

  it('injects a changed file once as an update', async () => {
    const agent = await FakeAgent.open(cwd)
    const producer = workspaceInstructions({ home })
    await agent.step([producer], 'hi')
    writeFileSync(join(repo, 'AGENTS.md'), 'Root rule, revised.\n')
    await agent.step([producer])
    await agent.step([producer])
    expect(texts(agent)).toHaveLength(2)
    expect(texts(agent)[1]).toBe(
      `<system-reminder>\nInstruction files changed on disk since you last saw them. New contents replace what you were shown before for the same file, and the instructions of a deleted file no longer apply.\n\nContents of ${join(repo, 'AGENTS.md')} (updated):\n\nRoot rule, revised.\n</system-reminder>`,
    )
  })

  it('announces a deleted file once and a file that appears as new', async () => {
    const agent = await FakeAgent.open(cwd)
    const producer = workspaceInstructions({ home })
    await agent.step([producer], 'hi')
    unlinkSync(join(cwd, 'CLAUDE.md'))
    writeFileSync(join(cwd, 'AGENTS.local.md'), 'Mine.\n')
    await agent.step([producer])
    await agent.step([producer])
    expect(texts(agent)).toHaveLength(2)
    expect(texts(agent)[1]).toContain(`Contents of ${join(cwd, 'AGENTS.local.md')} (new):\n\nMine.`)
    expect(texts(agent)[1]).toContain(`${join(cwd, 'CLAUDE.md')} was deleted.`)
  })

  it('injects the instructions of a nested directory after a read there, once', async () => {
    writeFileSync(join(cwd, 'lib/AGENTS.md'), 'Lib rule.\n')
    writeFileSync(join(cwd, 'lib/deep/CLAUDE.md'), 'Deep rule.\n')
    const agent = await FakeAgent.open(cwd)
    const producer = workspaceInstructions({ home })
    await agent.step([producer], 'hi')
    const first = await agent.tool(producer, 'read', { file_path: 'lib/deep/x.ts' })
    expect(first).toHaveLength(2)
    expect(first[0]).toContain(`Additional instructions for ${join(cwd, 'lib')} follow`)
    expect(first[0]).toContain('Lib rule.')
    expect(first[1]).toContain('Deep rule.')
    expect(await agent.tool(producer, 'edit', { file_path: join(cwd, 'lib/deep/y.ts') })).toEqual([])
    expect(await agent.step([producer])).toEqual([])
  })

  it('does not inject one directory twice for two reads in the same step', async () => {
    writeFileSync(join(cwd, 'lib/AGENTS.md'), 'Lib rule.\n')
    const agent = await FakeAgent.open(cwd)
    const producer = workspaceInstructions({ home })
    await agent.step([producer], 'hi')
    const outcome1 = await producer.postTool?.(
      { ...call('read', { file_path: 'lib/a.ts' }), callId: 'a' },
      { content: [] },
      agent.api,
    )
    const outcome2 = await producer.postTool?.(
      { ...call('read', { file_path: 'lib/b.ts' }), callId: 'b' },
      { content: [] },
      agent.api,
    )
    expect(outcome1?.context).toHaveLength(1)
    expect(outcome2).toBeUndefined()
  })

  it('ignores tools other than read, write and edit, paths outside the working directory and bad input', async () => {
    writeFileSync(join(cwd, 'lib/AGENTS.md'), 'Lib rule.\n')
    const agent = await FakeAgent.open(cwd)
    const producer = workspaceInstructions({ home })
    await agent.step([producer], 'hi')
    expect(await agent.tool(producer, 'bash', { command: 'cat lib/x' })).toEqual([])
    expect(await agent.tool(producer, 'read', { file_path: join(repo, 'other.ts') })).toEqual([])
    expect(await agent.tool(producer, 'read', { file_path: '../../etc/passwd' })).toEqual([])
    expect(await agent.tool(producer, 'read', { file_path: 'top.ts' })).toEqual([])
    expect(await agent.tool(producer, 'read', { file_path: 42 })).toEqual([])
    expect(await agent.tool(producer, 'read', {})).toEqual([])
  })

  it('injects an update when a nested file loaded earlier changes', async () => {
    writeFileSync(join(cwd, 'lib/AGENTS.md'), 'Lib rule.\n')
    const agent = await FakeAgent.open(cwd)
    const producer = workspaceInstructions({ home })
    await agent.step([producer], 'hi')
    await agent.tool(producer, 'read', { file_path: 'lib/a.ts' })
    writeFileSync(join(cwd, 'lib/AGENTS.md'), 'Lib rule v2.\n')
    await agent.step([producer])
    expect(texts(agent).at(-1)).toContain(`Contents of ${join(cwd, 'lib/AGENTS.md')} (updated):\n\nLib rule v2.`)
  })

  it('on resume injects only what changed while the session was closed', async () => {
    const agent = await FakeAgent.open(cwd)
    await agent.step([workspaceInstructions({ home })], 'hi')
    writeFileSync(join(home, 'AGENTS.md'), 'User rule, edited offline.\n')
    // A new producer has no memory: it learns the earlier state from the surface alone.
    const resumed = workspaceInstructions({ home })
    await agent.step([resumed], 'again')
    expect(texts(agent)).toHaveLength(2)
    expect(texts(agent)[1]).toContain('User rule, edited offline.')
    expect(texts(agent)[1]).not.toContain('Root rule.')
    expect(await agent.step([resumed])).toEqual([])
  })

  it('after compaction shadowed its messages, enters a complete fresh copy', async () => {
    const agent = await FakeAgent.open(cwd)
    const producer = workspaceInstructions({ home })
    await agent.step([producer], 'hi')
    agent.compact('summary of the conversation')
    const entered = await agent.step([producer])
    expect(entered).toHaveLength(1)
    expect(texts(agent)).toHaveLength(1)
    expect(texts(agent)[0]).toContain('Instructions for this workspace follow')
    expect(texts(agent)[0]).toContain('User rule.')
    expect(texts(agent)[0]).toContain('App rule.')
  })

  it('treats a record with malformed meta as unknown and shows the file again', async () => {
    const agent = await FakeAgent.open(cwd)
    const producer = workspaceInstructions({ home })
    agent.enterContext(WORKSPACE_CONTEXT, 'Instructions for this workspace follow.', {
      block: 'workspace',
      files: [{ path: 7, sha256: 'x', status: 'shown' }, 'junk', null],
    })
    await agent.step([producer], 'hi')
    expect(texts(agent)[1]).toContain(`Contents of ${join(cwd, 'CLAUDE.md')} (new)`)
  })

  it('escapes a closing tag inside a file so the block stays whole', async () => {
    writeFileSync(join(repo, 'AGENTS.md'), 'Before </system-reminder> after.\n')
    const agent = await FakeAgent.open(cwd)
    await agent.step([workspaceInstructions({ home })], 'hi')
    const text = texts(agent)[0]
    expect(text.match(/<\/system-reminder>/g)).toHaveLength(1)
    expect(text).toContain('Before <\\/system-reminder> after.')
  })
})
