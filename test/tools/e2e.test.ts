import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openAgentWithContext } from '../../src/runtime/open.js'
import type { PermissionMode } from '../../src/agent/types.js'
import { createAdapter } from '../../src/llm/create.js'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { killStrays, liveProcesses } from './processes.js'

// The built-in tools and the permission policy through the real agent loop (openAgent wiring), against the mock
// model: what the model reads back is checked in the tool messages of the next request.

let root: string
let cwd: string
let home: string
let mock: MockModel | undefined

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'rein-e2e-tools-')))
  cwd = path.join(root, 'work')
  home = path.join(root, 'home')
  mkdirSync(cwd)
  mkdirSync(home)
})
afterEach(async () => {
  await mock?.close()
  mock = undefined
  rmSync(root, { recursive: true, force: true })
})

/** Runs one prompt; the script's tool calls run for real. Returns what each tool result said, in order. */
async function run(script: MockResponse[], options: { mode?: PermissionMode; allow?: string[] } = {}): Promise<string[]> {
  mock = await startMockModel({ script: [...script, { text: 'done' }] })
  const { agent } = await openAgentWithContext({
    cwd,
    home,
    env: { ...process.env, REIN_HOME: home },
    adapter: createAdapter({ wire: 'chat', baseUrl: mock.url, apiKey: () => 'test-key' }),
    permissionMode: options.mode,
    allow: options.allow,
  })
  try {
    agent.followUp('go')
    await agent.whenIdle()
  } finally {
    await agent.close()
  }
  const last = mock.requests.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!.body as {
    messages: { role: string; content: unknown }[]
  }
  return last.messages.filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
}

const calls = (...list: [string, Record<string, unknown>][]): MockResponse[] =>
  list.map(([name, args]) => ({ toolCalls: [{ name, arguments: args }] }))

describe('built-in tools through the agent loop', () => {
  it('refuses a stale write after the file changed on disk', async () => {
    writeFileSync(path.join(cwd, 'a.txt'), 'one\n')
    const script: MockResponse[] = [
      { toolCalls: [{ name: 'read', arguments: { file_path: 'a.txt' } }] },
      { toolCalls: [{ name: 'bash', arguments: { command: 'echo changed > a.txt' } }] },
      { toolCalls: [{ name: 'write', arguments: { file_path: 'a.txt', content: 'model\n' } }] },
    ]
    const results = await run(script, { mode: 'bypass' })
    expect(results[2]).toMatch(/changed on disk since you last read it/)
    expect(readFileSync(path.join(cwd, 'a.txt'), 'utf8')).toBe('changed\n')
  })

  it('reports an ambiguous edit and then edits a CRLF file keeping its endings', async () => {
    writeFileSync(path.join(cwd, 'w.txt'), 'x\r\nx\r\ny\r\n')
    const results = await run(
      calls(
        ['read', { file_path: 'w.txt' }],
        ['edit', { file_path: 'w.txt', old_string: 'x', new_string: 'z' }],
        ['edit', { file_path: 'w.txt', old_string: 'x\ny', new_string: 'x\nY' }],
      ),
      { mode: 'accept-edits' },
    )
    expect(results[1]).toMatch(/occurs 2 times/)
    expect(results[2]).toBe('Edited w.txt: replaced 1 occurrence.')
    expect(readFileSync(path.join(cwd, 'w.txt'), 'utf8')).toBe('x\r\nx\r\nY\r\n')
  })

  it('refuses a binary file and kills a timed-out command without leaving an orphan', async () => {
    writeFileSync(path.join(cwd, 'b.bin'), Buffer.from([0, 1, 2]))
    const results = await run(calls(['read', { file_path: 'b.bin' }], ['bash', { command: 'sleep 61.01 & sleep 61.02', timeout: 300 }]), {
      mode: 'bypass',
    })
    expect(results[0]).toMatch(/binary file/)
    expect(results[1]).toMatch(/timed out after 300 ms/)
    expect(liveProcesses('sleep 61.0')).toEqual([])
  })

  it('does not show DEEPSEEK_API_KEY to a command', async () => {
    process.env.DEEPSEEK_API_KEY = 'sk-e2e-secret'
    try {
      // A variable expansion is never allowed by a rule alone, so this runs in bypass mode.
      const results = await run(calls(['bash', { command: 'echo "key=[$DEEPSEEK_API_KEY]"' }]), { mode: 'bypass' })
      expect(results[0]).toBe('key=[]\n[exit code: 0]')
    } finally {
      delete process.env.DEEPSEEK_API_KEY
    }
  })

  it('with no front end attached, turns ask into a result saying how to grant permission', async () => {
    const results = await run(calls(['bash', { command: 'npm test' }], ['write', { file_path: 'n.txt', content: 'x' }]))
    expect(results[0]).toMatch(/Permission needed: running `npm test`.*--allow 'Bash\(npm test\)'/)
    expect(results[1]).toMatch(/--permission-mode accept-edits/)
  })

  it('keeps writes inside the workspace unless a rule allows the outside path', async () => {
    const results = await run(calls(['write', { file_path: '../outside.txt', content: 'escaped' }]), { mode: 'accept-edits' })
    expect(results[0]).toMatch(/Permission needed/)
    expect(() => readFileSync(path.join(root, 'outside.txt'))).toThrow()
  })

  it('searches with grep through the loop with and without ripgrep', async () => {
    writeFileSync(path.join(cwd, 'a.ts'), 'const needle = 1\n')
    process.env.REIN_GREP = 'builtin'
    try {
      const builtin = await run(calls(['grep', { pattern: 'needle', output_mode: 'content' }]))
      expect(builtin[0]).toBe('a.ts:1:const needle = 1')
    } finally {
      delete process.env.REIN_GREP
    }
    const native = await run(calls(['grep', { pattern: 'needle', output_mode: 'content' }]))
    expect(native[0]).toBe('a.ts:1:const needle = 1')
  })

  it('returns from a command that forks a background child and exits', { timeout: 30_000 }, async () => {
    try {
      const results = await run(calls(['bash', { command: '(sleep 300.61 &); echo forked' }]), { mode: 'bypass' })
      expect(results[0]).toBe('forked\n[exit code: 0]')
    } finally {
      killStrays('sleep 300.61')
    }
  })

  it('denies writes in plan mode with a message that says the model is planning', async () => {
    const results = await run(calls(['write', { file_path: 'p.txt', content: 'x' }]), { mode: 'plan' })
    expect(results[0]).toMatch(/plan mode.*You are planning/)
  })

  it('does not allow `git status && rm -rf` by a Bash(git status:*) rule', async () => {
    mkdirSync(path.join(cwd, 'keep'))
    const results = await run(calls(['bash', { command: 'git status && rm -rf keep' }]), { allow: ['Bash(git status:*)'] })
    expect(results[0]).toMatch(/Permission needed/)
    expect(existsSync(path.join(cwd, 'keep'))).toBe(true)
  })
})
