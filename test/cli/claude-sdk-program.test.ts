import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import type { Line } from '../support/stream-json-client.js'
import { loadAgentSdk, promptQueue, reinForSdk, sdkEnv } from './claude-control-helper.js'
import { compileAsSdkMessages } from './claude-sdk-types.js'
import type { HookCallback, Options, PermissionResult, SDKMessage } from '../../interop/claude-agent-sdk/node_modules/@anthropic-ai/claude-agent-sdk/sdk.js'

/**
 * The done-when of issue 32: a program written for Claude Code, with the options such programs use, runs against
 * Rein with only `pathToClaudeCodeExecutable` changed. The program below is what its author would write for Claude
 * Code; nothing in it knows about Rein.
 */

interface Run {
  messages: SDKMessage[]
  stdout: Line[]
  args: string[]
  stderr: string
  asked: string[]
  notes: string[]
  postToolUse: Record<string, unknown>[]
  cwd: string
  home: string
  mock: MockModel
}

async function runProgram(): Promise<Run> {
  const sdk = await loadAgentSdk()
  const rein = reinForSdk()
  writeFileSync(join(rein.cwd, 'notes.txt'), 'buy milk\n')
  // A hook in the user's own Claude Code settings: settingSources ['project'] leaves the user layer out.
  mkdirSync(join(rein.home, '.claude'), { recursive: true })
  const userHookRan = join(rein.home, 'user-hook-ran')
  writeFileSync(join(rein.home, '.claude', 'settings.json'), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `touch ${userHookRan}` }] }] } }))
  const rein_ = /You are Rein/
  const mock = await startMockModel({
    script: [
      // 1: a read the allowedTools cover, then a tool of the program's own MCP server.
      { toolCalls: [{ name: 'read', arguments: { file_path: 'notes.txt' } }] },
      { toolCalls: [{ name: 'mcp__notes__save_note', arguments: { text: 'buy milk' } }] },
      { text: 'Saved the note.' },
      // 2: two writes; canUseTool approves the first with a standing rule, so the second is not asked about.
      { toolCalls: [{ name: 'write', arguments: { file_path: 'a.txt', content: 'A' } }] },
      { toolCalls: [{ name: 'write', arguments: { file_path: 'b.txt', content: 'B' } }] },
      { text: 'Wrote both.' },
      // 3: the program's own subagent type, through the task tool.
      { toolCalls: [{ name: 'task', arguments: { description: 'run tests', prompt: 'Run the tests.', subagent_type: 'test-runner' } }] },
      { system: /You run the tests and report failures\./, text: 'All 3 tests pass.' },
      { system: rein_, text: 'The tests pass.' },
      // 4: a command the PreToolUse callback refuses.
      { toolCalls: [{ name: 'bash', arguments: { command: 'rm -rf build' } }] },
      { text: 'The hook refused it.' },
      // 5: a slow command, interrupted.
      { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 20' } }] },
      { text: 'never reached', repeat: true },
    ],
  })

  const notes: string[] = []
  const notesServer = sdk.createSdkMcpServer({
    name: 'notes',
    version: '1.0.0',
    tools: [
      sdk.tool('save_note', 'Saves a note', { text: z.string() }, async ({ text }) => {
        notes.push(text)
        return { content: [{ type: 'text', text: `saved: ${text}` }] }
      }),
    ],
  })
  const guard: HookCallback = async (input) => {
    const command = (input as { tool_input?: { command?: string } }).tool_input?.command ?? ''
    if (command.startsWith('rm ')) {
      return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'No deleting in this repository.' } }
    }
    return {}
  }
  const postToolUse: Record<string, unknown>[] = []
  const audit: HookCallback = async (input) => {
    postToolUse.push(input as unknown as Record<string, unknown>)
    return {}
  }
  const asked: string[] = []
  const canUseTool = async (toolName: string, input: Record<string, unknown>): Promise<PermissionResult> => {
    asked.push(`${toolName}:${String(input.file_path ?? input.command ?? '')}`)
    if (toolName === 'Write') {
      return { behavior: 'allow', updatedInput: input, updatedPermissions: [{ type: 'addRules', rules: [{ toolName: 'Write' }], behavior: 'allow', destination: 'session' }] }
    }
    return { behavior: 'allow', updatedInput: input }
  }
  let stderr = ''
  const options: Options = {
    pathToClaudeCodeExecutable: rein.exe,
    cwd: rein.cwd,
    env: sdkEnv(mock.url, rein.home),
    allowedTools: ['Read', 'Grep', 'mcp__notes__save_note'],
    permissionMode: 'default',
    systemPrompt: { type: 'preset', preset: 'claude_code', append: 'Answer in one line.' },
    settingSources: ['project'],
    mcpServers: { notes: notesServer },
    agents: { 'test-runner': { description: 'Runs the tests', prompt: 'You run the tests and report failures.', tools: ['Bash', 'Read'] } },
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [guard] }], PostToolUse: [{ hooks: [audit] }] },
    canUseTool,
    stderr: (data) => (stderr += data),
  }
  const input = promptQueue()
  const q = sdk.query({ prompt: input, options })
  const messages: SDKMessage[] = []
  let results = 0
  let wake: (() => void) | undefined
  const reading = (async () => {
    for await (const message of q) {
      messages.push(message)
      if (message.type === 'result') results++
      wake?.()
    }
  })()
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise<void>((resolve) => (wake = resolve))
  }
  const turns = ['Save a note of what notes.txt says.', 'Write a.txt and b.txt.', 'Have the tests run.', 'Clean the build.']
  for (const [i, text] of turns.entries()) {
    input.push(text)
    await until(() => results > i)
  }
  input.push('Wait a while.')
  await until(() => messages.some((m) => m.type === 'assistant' && JSON.stringify(m.message.content).includes('sleep 20')))
  await new Promise((resolve) => setTimeout(resolve, 300))
  await q.interrupt()
  await until(() => results > 4)
  input.end()
  await reading
  return { messages, stdout: rein.lines(), args: rein.args(), stderr, asked, notes, postToolUse, cwd: rein.cwd, home: rein.home, mock }
}

describe('a Claude Code SDK program, unchanged but for pathToClaudeCodeExecutable', () => {
  let run: Run
  beforeAll(async () => {
    run = await runProgram()
  }, 120_000)
  afterAll(() => run?.mock.close())

  const body = (i: number) => run.mock.requests[i].body as { messages: { role: string; content: unknown }[]; tools: { function: { name: string } }[] }

  it("runs on the SDK's own command line, and Rein says nothing about options it ignored", () => {
    expect(run.args).toEqual(expect.arrayContaining(['--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json', '--permission-prompt-tool=stdio', '--setting-sources=project']))
    expect(run.args).not.toContain('-p')
    expect(run.stderr).not.toMatch(/has no effect|not supported|ignored/)
    expect(run.messages.filter((m) => m.type === 'result')).toHaveLength(5)
  })

  it("the preset's append follows Rein's system prompt, and settingSources leaves the user's hooks out", () => {
    const system = body(0).messages[0] as { role: string; content: string }
    expect(system.role).toBe('system')
    expect(system.content).toMatch(/^You are Rein/)
    expect(system.content.endsWith('\n\nAnswer in one line.')).toBe(true)
    expect(existsSync(join(run.home, 'user-hook-ran'))).toBe(false)
  })

  it('allowedTools run without a question; an SDK MCP tool runs in the program', () => {
    expect(run.asked.filter((a) => a.startsWith('Read') || a.startsWith('mcp__'))).toEqual([])
    expect(run.notes).toEqual(['buy milk'])
    expect(body(2).messages.at(-1)).toMatchObject({ role: 'tool', content: 'saved: buy milk' })
  })

  it("canUseTool's updatedPermissions add a standing rule: the second write is not asked about", () => {
    expect(run.asked.filter((a) => a.startsWith('Write'))).toEqual(['Write:a.txt'])
    expect(readFileSync(join(run.cwd, 'a.txt'), 'utf8')).toBe('A')
    expect(readFileSync(join(run.cwd, 'b.txt'), 'utf8')).toBe('B')
  })

  it("the program's agents are subagent types the task tool runs, with their prompt and tools", () => {
    const init = run.messages.find((m) => m.type === 'system' && m.subtype === 'init')
    expect(init).toMatchObject({ agents: expect.arrayContaining(['test-runner']) })
    const child = run.mock.requests.find((r) => JSON.stringify(r.body).includes('You run the tests and report failures.'))
    const tools = (child?.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name).sort()
    expect(tools).toEqual(['bash', 'read'])
    expect(JSON.stringify(body(8).messages.at(-1))).toContain('All 3 tests pass.')
  })

  it('a PreToolUse callback refuses a command; PostToolUse callbacks see what ran', () => {
    expect(JSON.stringify(body(10).messages.at(-1))).toContain('No deleting in this repository.')
    expect(run.asked).not.toContain('Bash:rm -rf build')
    expect(run.postToolUse.map((p) => p.tool_name)).toEqual(expect.arrayContaining(['Read', 'mcp__notes__save_note', 'Write']))
  })

  it('interrupt() ends the slow turn with an error result', () => {
    expect(run.messages.filter((m) => m.type === 'result').at(-1)).toMatchObject({ type: 'result', is_error: true })
    expect(run.mock.requests).toHaveLength(12)
  })

  it('every message the program read type-checks as SDKMessage', async () => {
    expect(await compileAsSdkMessages(run.messages)).toBe('')
  }, 120_000)
})

describe("permissionMode 'dontAsk' in an SDK program", () => {
  it('refuses what is not pre-approved without calling canUseTool', async () => {
    const sdk = await loadAgentSdk()
    const rein = reinForSdk()
    const mock = await startMockModel({ script: [{ toolCalls: [{ name: 'write', arguments: { file_path: 'x.txt', content: 'x' } }] }, { text: 'Refused.' }] })
    try {
      const asked: string[] = []
      const messages: SDKMessage[] = []
      const q = sdk.query({
        prompt: 'Write x.txt.',
        options: {
          pathToClaudeCodeExecutable: rein.exe,
          cwd: rein.cwd,
          env: sdkEnv(mock.url, rein.home),
          permissionMode: 'dontAsk',
          canUseTool: async (toolName) => {
            asked.push(toolName)
            return { behavior: 'allow' }
          },
        },
      })
      for await (const message of q) messages.push(message)
      expect(asked).toEqual([])
      expect(existsSync(join(rein.cwd, 'x.txt'))).toBe(false)
      expect(messages.find((m) => m.type === 'result')).toMatchObject({ permission_denials: [expect.objectContaining({ tool_name: 'Write' })] })
    } finally {
      await mock.close()
    }
  }, 60_000)
})
