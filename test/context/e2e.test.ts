import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { workspaceBlock } from '../../src/context/workspace-text.js'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { messagesOf, reinEnv, ReinRpc, requireBuiltCli, runRein, tempDir, userText, type WireMessage } from './cli-support.js'

/**
 * The context producers through the built CLI against the mock model: what the model receives, request by request.
 * Workspace: $REIN_HOME/AGENTS.md (user), repo/AGENTS.md (root, holding a closing tag), repo/app/CLAUDE.md (the
 * working directory), repo/app/sub/AGENTS.md (nested, loaded when a tool reaches it).
 */

let base: string
let home: string
let repo: string
let cwd: string
let mock: MockModel | undefined

beforeAll(requireBuiltCli)

beforeEach(() => {
  base = tempDir('rein-ctx-e2e-')
  home = join(base, 'home')
  repo = join(base, 'repo')
  cwd = join(repo, 'app')
  mkdirSync(home, { recursive: true })
  // A bare .git folder marks the project root without making git report a repository, so runtime facts stay fixed.
  mkdirSync(join(repo, '.git'), { recursive: true })
  mkdirSync(join(cwd, 'sub'), { recursive: true })
  writeFileSync(join(home, 'AGENTS.md'), 'User rule: answer in English.\n')
  writeFileSync(join(repo, 'AGENTS.md'), 'Root rule. A stray </system-reminder> must not end the block.\n')
  writeFileSync(join(cwd, 'CLAUDE.md'), 'App rule: use tabs.\n')
  writeFileSync(join(cwd, 'sub/AGENTS.md'), 'Sub rule: no semicolons.\n')
  writeFileSync(join(cwd, 'sub/code.ts'), 'export const x = 1\n')
  writeFileSync(join(cwd, 'notes.txt'), 'notes\n')
})

afterEach(async () => {
  await mock?.close()
  mock = undefined
  rmSync(base, { recursive: true, force: true })
})

async function runPrint(script: MockResponse[], ...args: string[]): Promise<void> {
  mock ??= await startMockModel()
  mock.push(...script)
  const result = await runRein(['-p', ...args, '--cwd', cwd], reinEnv(mock, home))
  expect(result.stderr).toBe('')
  expect(result.code).toBe(0)
}

const isWorkspace = (m: WireMessage) => m.role === 'user' && userText(m).startsWith('<system-reminder>\nInstructions for this workspace')
const workspaceMessages = (messages: WireMessage[]) =>
  messages.filter((m) => m.role === 'user' && /^<system-reminder>\n(Instructions for this workspace|Additional instructions|Instruction files changed)/.test(userText(m)))
const read = (file_path: string): MockResponse => ({ toolCalls: [{ name: 'read', arguments: { file_path } }] })

describe('what the model is told, end to end', () => {
  it('the first request carries exactly one workspace message: the producer block, unwrapped, with no source or meta', async () => {
    await runPrint([{ text: 'hello' }], 'hi')
    const body = mock!.requests[0].body as { messages: WireMessage[] }
    const found = body.messages.filter(isWorkspace)
    expect(found).toHaveLength(1)
    const expected = workspaceBlock({
      files: [
        { path: join(home, 'AGENTS.md'), content: readFileSync(join(home, 'AGENTS.md'), 'utf8') },
        { path: join(repo, 'AGENTS.md'), content: readFileSync(join(repo, 'AGENTS.md'), 'utf8') },
        { path: join(cwd, 'CLAUDE.md'), content: readFileSync(join(cwd, 'CLAUDE.md'), 'utf8') },
      ],
      dropped: [],
      budgetBytes: 64 * 1024,
      userWidePath: join(home, 'AGENTS.md'),
    })
    expect(userText(found[0])).toBe(expected)
    expect(userText(found[0]).match(/<\/system-reminder>/g)).toHaveLength(1)
    expect(userText(found[0])).not.toContain('Sub rule')
    // It enters right after the prompt.
    const index = body.messages.indexOf(found[0])
    expect(userText(body.messages[index - 1])).toBe('hi')
    const raw = JSON.stringify(body)
    expect(raw).not.toMatch(/"(source|meta)"/)
    expect(raw).not.toMatch(/<context\b/)
  })

  it('reading a file in a nested directory injects its instructions before the next request', async () => {
    await runPrint([read('sub/code.ts'), { text: 'done' }], 'look at sub')
    expect(workspaceMessages(messagesOf(mock!, 0))).toHaveLength(1)
    const second = messagesOf(mock!, 1)
    const last = second.at(-1)!
    expect(second.at(-2)!.role).toBe('tool')
    expect(last.role).toBe('user')
    expect(userText(last)).toContain(`Additional instructions for ${join(cwd, 'sub')} follow`)
    expect(userText(last)).toContain('Sub rule: no semicolons.')
  })

  it('editing an instruction file mid-session injects the update once', async () => {
    await runPrint(
      [
        read('CLAUDE.md'),
        { toolCalls: [{ name: 'edit', arguments: { file_path: 'CLAUDE.md', old_string: 'use tabs', new_string: 'use spaces' } }] },
        read('notes.txt'),
        read('notes.txt'),
        { text: 'done' },
      ],
      '--permission-mode',
      'accept-edits',
      'fix the rule',
    )
    expect(readFileSync(join(cwd, 'CLAUDE.md'), 'utf8')).toBe('App rule: use spaces.\n')
    const last = messagesOf(mock!, mock!.requests.length - 1)
    const updates = last.filter((m) => m.role === 'user' && userText(m).includes('Instruction files changed on disk'))
    expect(updates).toHaveLength(1)
    expect(userText(updates[0])).toContain(`Contents of ${join(cwd, 'CLAUDE.md')} (updated):\n\nApp rule: use spaces.`)
    expect(userText(updates[0])).not.toContain('Root rule')
    // It reached the model in the request right after the edit's result.
    expect(messagesOf(mock!, 2).filter((m) => userText(m).includes('Instruction files changed on disk'))).toHaveLength(1)
  })

  it('resuming after an offline edit injects only the change', async () => {
    await runPrint([{ text: 'first answer' }], 'hi')
    writeFileSync(join(repo, 'AGENTS.md'), 'Root rule, edited while the session was closed.\n')
    await runPrint([{ text: 'second answer' }], '--continue', 'again')
    const before = messagesOf(mock!, 0)
    const after = messagesOf(mock!, 1)
    // The resumed request extends the earlier one exactly.
    expect(after.slice(0, before.length)).toEqual(before)
    const added = workspaceMessages(after.slice(before.length))
    expect(added).toHaveLength(1)
    expect(userText(added[0])).toContain(`Contents of ${join(repo, 'AGENTS.md')} (updated):\n\nRoot rule, edited while the session was closed.`)
    expect(userText(added[0])).not.toContain('User rule')
    expect(userText(added[0])).not.toContain('App rule')
  })

  it('resuming with nothing changed on disk injects no instructions', async () => {
    await runPrint([{ text: 'first answer' }], 'hi')
    await runPrint([{ text: 'second answer' }], '--continue', 'again')
    const before = messagesOf(mock!, 0)
    expect(workspaceMessages(messagesOf(mock!, 1).slice(before.length))).toEqual([])
  })

  it('a 20-step session keeps each request a prefix extension, with cache hits of at least 90% from the third request', async () => {
    const script: MockResponse[] = []
    for (let i = 0; i < 19; i++) script.push(read('notes.txt'))
    script.push({ text: 'done' })
    await runPrint(script, 'read notes many times')
    const requests = mock!.requests
    expect(requests).toHaveLength(20)
    for (let i = 1; i < requests.length; i++) {
      const previous = messagesOf(mock!, i - 1)
      expect(messagesOf(mock!, i).slice(0, previous.length)).toEqual(previous)
    }
    const shares = requests.map((r) => (r.cacheHitTokens ?? 0) / (r.promptTokens ?? 1))
    for (const share of shares.slice(2)) expect(share).toBeGreaterThanOrEqual(0.9)
    // Unchanged runtime facts were told once.
    expect(messagesOf(mock!, 19).filter((m) => userText(m).includes('Current session facts'))).toHaveLength(1)
  })

  it('changing the permission mode mid-session adds one context message and keeps the prefix', async () => {
    mock = await startMockModel({ script: [{ text: 'one' }, { text: 'two' }] })
    const rpc = new ReinRpc(['--cwd', cwd], reinEnv(mock, home))
    try {
      await rpc.prompt('first')
      expect(await rpc.request({ type: 'set_permission_mode', mode: 'accept-edits' })).toMatchObject({ ok: true })
      await rpc.prompt('second')
    } finally {
      await rpc.close()
    }
    const before = messagesOf(mock, 0)
    const after = messagesOf(mock, 1)
    expect(after.slice(0, before.length)).toEqual(before)
    const added = after.slice(before.length)
    expect(added.map((m) => m.role)).toEqual(['assistant', 'user', 'user'])
    expect(userText(added[1])).toBe('second')
    expect(userText(added[2])).toContain('- Permission mode: accept-edits')
    expect(userText(added[2]).startsWith('<system-reminder>\nCurrent session facts')).toBe(true)
  })
})
