import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { z } from 'zod'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import type { Line } from '../support/stream-json-client.js'
import { AGENT_SDK, loadAgentSdk, promptQueue, reinForSdk, sdkEnv } from './claude-control-helper.js'
import type { HookCallback, McpServerStatus, SDKMessage, SlashCommand } from '../../interop/claude-agent-sdk/node_modules/@anthropic-ai/claude-agent-sdk/sdk.js'

const ROOT = resolve(import.meta.dirname, '../..')
const tsc = promisify(execFile)

/** The messages of the model request at `index`. */
function sent(mock: MockModel, index: number): Record<string, unknown>[] {
  return (mock.requests[index].body as { messages: Record<string, unknown>[] }).messages
}

interface Run {
  messages: SDKMessage[]
  stdout: Line[]
  asked: { tool: string; input: Record<string, unknown> }[]
  hookInputs: Record<string, unknown>[]
  commands: SlashCommand[]
  servers: McpServerStatus[]
  modeAfter: string | undefined
  interruptedResult: SDKMessage | undefined
  cwd: string
  mock: MockModel
}

/**
 * One SDK program, unchanged but for `pathToClaudeCodeExecutable`, over five streamed turns: (1) a write approved
 * with changed input and one denied; (2) two tools of an in-process SDK MCP server, one of which throws; (3) a
 * UserPromptSubmit hook adding context; (4) after setPermissionMode('acceptEdits'), a write nobody is asked about;
 * (5) a slow command stopped by interrupt().
 */
async function sdkRun(): Promise<Run> {
  const sdk = await loadAgentSdk()
  const rein = reinForSdk()
  const a = join(rein.cwd, 'a.txt')
  const b = join(rein.cwd, 'b.txt')
  const c = join(rein.cwd, 'c.txt')
  const mock = await startMockModel({
    script: [
      { toolCalls: [{ name: 'write', arguments: { file_path: a, content: 'from the model' } }] },
      { toolCalls: [{ name: 'write', arguments: { file_path: b, content: 'never' } }] },
      { text: 'Wrote a.txt; b.txt was refused.' },
      { toolCalls: [{ name: 'mcp__calc__add', arguments: { a: 2, b: 3 } }, { name: 'mcp__calc__explode', arguments: {} }] },
      { text: 'The sum is 5.' },
      { text: 'Noted.' },
      { toolCalls: [{ name: 'write', arguments: { file_path: c, content: 'accepted' } }] },
      { text: 'Wrote c.txt.' },
      { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 20' } }] },
      { text: 'never reached', repeat: true },
    ],
  })
  const asked: Run['asked'] = []
  const hookInputs: Record<string, unknown>[] = []
  const hook: HookCallback = async (input) => {
    hookInputs.push(input as unknown as Record<string, unknown>)
    if (input.hook_event_name === 'UserPromptSubmit') {
      return { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'The hook says: be brief.' } }
    }
    return {}
  }
  const calc = sdk.createSdkMcpServer({
    name: 'calc',
    tools: [
      sdk.tool('add', 'Adds two numbers', { a: z.number(), b: z.number() }, async ({ a: x, b: y }) => ({ content: [{ type: 'text', text: String(x + y) }] })),
      sdk.tool('explode', 'Always fails', {}, async () => {
        throw new Error('the calculator exploded')
      }),
    ],
  })
  const input = promptQueue()
  const q = sdk.query({
    prompt: input,
    options: {
      pathToClaudeCodeExecutable: rein.exe,
      cwd: rein.cwd,
      env: sdkEnv(mock.url, rein.home),
      mcpServers: { calc },
      hooks: { PreToolUse: [{ hooks: [hook] }], UserPromptSubmit: [{ hooks: [hook] }] },
      canUseTool: async (tool, toolInput) => {
        asked.push({ tool, input: toolInput })
        if (toolInput.file_path === b) return { behavior: 'deny', message: 'Not b.txt, please.' }
        if (toolInput.file_path === a) return { behavior: 'allow', updatedInput: { ...toolInput, content: 'changed by the host' } }
        return { behavior: 'allow', updatedInput: toolInput }
      },
    },
  })
  const messages: SDKMessage[] = []
  const results: SDKMessage[] = []
  let wakeResult: (() => void) | undefined
  const reading = (async () => {
    for await (const message of q) {
      messages.push(message)
      if (message.type === 'result') {
        results.push(message)
        wakeResult?.()
      }
    }
  })()
  const nextResult = async (n: number) => {
    while (results.length < n) await new Promise<void>((resolve) => (wakeResult = resolve))
  }
  input.push('First: write a.txt and b.txt.')
  await nextResult(1)
  const commands = await q.supportedCommands()
  input.push('Second: add 2 and 3.')
  await nextResult(2)
  const servers = await q.mcpServerStatus()
  await q.setModel('deepseek-v4-pro')
  await q.setMaxThinkingTokens(0)
  input.push('Third: anything.')
  await nextResult(3)
  await q.setModel(undefined)
  await q.setMaxThinkingTokens(null)
  const mode = await q.setPermissionMode('acceptEdits')
  input.push('Fourth: write c.txt.')
  await nextResult(4)
  input.push('Fifth: run the slow command.')
  // The interrupt goes in once the slow command runs: its tool call is on the stream.
  while (!messages.some((m) => m.type === 'assistant' && JSON.stringify(m.message.content).includes('sleep 20'))) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await new Promise((resolve) => setTimeout(resolve, 300))
  await q.interrupt()
  await nextResult(5)
  input.end()
  await reading
  return {
    messages,
    stdout: rein.lines(),
    asked,
    hookInputs,
    commands,
    servers,
    modeAfter: (mode as { mode?: string } | undefined)?.mode,
    interruptedResult: results[4],
    cwd: rein.cwd,
    mock,
  }
}

describe('an Agent SDK program run against Rein through pathToClaudeCodeExecutable', () => {
  let run: Run
  beforeAll(async () => {
    run = await sdkRun()
  }, 120_000)
  afterAll(() => run?.mock.close())

  it('canUseTool approves a write with changed input and denies another with its message', () => {
    const writes = run.asked.filter((q) => q.tool === 'Write')
    expect(writes.map((q) => q.input.file_path)).toEqual([join(run.cwd, 'a.txt'), join(run.cwd, 'b.txt')])
    expect(readFileSync(join(run.cwd, 'a.txt'), 'utf8')).toBe('changed by the host')
    expect(existsSync(join(run.cwd, 'b.txt'))).toBe(false)
    expect(sent(run.mock, 2).at(-1)).toMatchObject({
      role: 'tool',
      content: 'Error: the user denied permission for this write call. The user said: Not b.txt, please.',
    })
  })

  it("an in-process SDK MCP server's tools run as MCP tools, and one that throws is an error result", () => {
    const request = run.mock.requests[3].body as { tools: { function: { name: string } }[] }
    expect(request.tools.map((t) => t.function.name)).toEqual(expect.arrayContaining(['mcp__calc__add', 'mcp__calc__explode']))
    expect(sent(run.mock, 4).slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_3_0', content: '5' },
      { role: 'tool', tool_call_id: 'call_3_1', content: 'Error: the calculator exploded' },
    ])
    expect(run.servers).toEqual([expect.objectContaining({ name: 'calc', status: 'connected', tools: [{ name: 'mcp__calc__add' }, { name: 'mcp__calc__explode' }] })])
  })

  it('hook callbacks fire for PreToolUse and UserPromptSubmit, and the context a hook adds reaches the model', () => {
    const events = run.hookInputs.map((i) => `${String(i.hook_event_name)}${i.tool_name ? `:${String(i.tool_name)}` : ''}`)
    expect(events.filter((e) => e.startsWith('UserPromptSubmit'))).toHaveLength(5)
    expect(events).toEqual(expect.arrayContaining(['PreToolUse:Write', 'PreToolUse:mcp__calc__add', 'PreToolUse:Bash']))
    expect(run.hookInputs.find((i) => i.hook_event_name === 'UserPromptSubmit')).toMatchObject({ prompt: 'First: write a.txt and b.txt.', cwd: run.cwd })
    expect(JSON.stringify(sent(run.mock, 5))).toContain('The hook says: be brief.')
  })

  it('setPermissionMode(acceptEdits) takes effect: the next write runs without a question', () => {
    expect(run.modeAfter).toBe('acceptEdits')
    expect(readFileSync(join(run.cwd, 'c.txt'), 'utf8')).toBe('accepted')
    expect(run.asked.some((q) => q.input.file_path === join(run.cwd, 'c.txt'))).toBe(false)
  })

  it('interrupt() stops a slow command and ends the turn', () => {
    expect(run.interruptedResult).toMatchObject({ type: 'result', is_error: true })
    // The command never finished: no request carried its result, and nothing was asked after it.
    expect(run.mock.requests).toHaveLength(9)
    const slow = run.stdout.find((l) => l.type === 'assistant' && JSON.stringify(l.message.content).includes('sleep 20'))
    const callId = (slow?.message.content as { type: string; id?: string }[]).find((b) => b.type === 'tool_use')?.id
    const result = run.stdout.find((l) => l.type === 'user' && Array.isArray(l.message.content) && l.message.content[0]?.tool_use_id === callId)
    expect(JSON.stringify(result?.message.content)).toMatch(/cancel/i)
  })

  it('setModel and setMaxThinkingTokens change the next request; null and undefined go back to the start', () => {
    const body = (i: number) => run.mock.requests[i].body as { model: string; thinking?: { type: string }; reasoning_effort?: string }
    expect([body(4).model, body(5).model, body(6).model]).toEqual(['deepseek-flash', 'deepseek-v4-pro', 'deepseek-flash'])
    expect([body(4).thinking?.type, body(5).thinking?.type, body(6).thinking?.type]).toEqual(['enabled', 'disabled', 'enabled'])
  })

  it('supportedCommands() and the init line describe the run', () => {
    expect(Array.isArray(run.commands)).toBe(true)
    const init = run.messages.find((m) => m.type === 'system' && m.subtype === 'init')
    expect(init).toMatchObject({ mcp_servers: [{ name: 'calc', status: 'connected' }] })
  })

  it("every line Rein printed compiles as the SDK's message or control type under tsc --strict", async () => {
    const lines = run.stdout
    const kinds = new Set(lines.map((l) => (l.type === 'control_request' ? `control_request/${l.request.subtype}` : l.type)))
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining(['assistant', 'control_request/can_use_tool', 'control_request/hook_callback', 'control_request/mcp_message', 'control_response', 'result', 'system', 'user']),
    )
    const dir = join(AGENT_SDK, '..', '..', '.cache', 'rein-control-types')
    mkdirSync(dir, { recursive: true })
    const work = mkdtempSync(join(dir, 'run-'))
    try {
      const typeOf = (l: Line) => (l.type === 'control_request' ? 'SDKControlRequest' : l.type === 'control_response' ? 'SDKControlResponse' : 'SDKMessage')
      const file = join(work, 'lines.ts')
      writeFileSync(
        file,
        [
          "import type { SDKControlRequest, SDKControlResponse, SDKMessage } from '@anthropic-ai/claude-agent-sdk'",
          'type ReinExtras = { rein?: Record<string, unknown> }',
          ...lines.map((l, i) => `export const line${i}: ${typeOf(l)} & ReinExtras = ${JSON.stringify(l)}`),
          '',
        ].join('\n'),
      )
      const args = ['--strict', '--noEmit', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', file]
      const result = await tsc(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), ...args], { cwd: work }).then(
        () => '',
        (error: { stdout?: string; message: string }) => error.stdout || error.message,
      )
      expect(result).toBe('')
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  }, 120_000)
})
