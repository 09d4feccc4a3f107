import { describe, expect, it } from 'vitest'
import { Readable } from 'node:stream'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import type { PermissionRequest } from '../../src/agent/types.js'
import { ControlChannel } from '../../src/cli/print/control/channel.js'
import { effortForBudget } from '../../src/cli/print/control/handlers.js'
import { sdkHooks } from '../../src/cli/print/control/hooks.js'
import { InputPump } from '../../src/cli/print/control/input-pump.js'
import { sdkPermissionAsker } from '../../src/cli/print/control/permission.js'
import { ControlSession } from '../../src/cli/print/control/session.js'
import { parseInputLine } from '../../src/cli/print/stream-input.js'
import { ExchangeTransport } from '../../src/mcp/control-transport.js'

// `any` on purpose: written lines are arbitrary JSON that the tests read field by field.
type Written = Record<string, any>

/** A channel whose output and stderr sentences are kept for the test to read. */
function channel() {
  const written: Written[] = []
  const reported: string[] = []
  const ch = new ControlChannel(
    (line) => written.push(line as Written),
    (message) => reported.push(message),
  )
  return { ch, written, reported }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('the control channel', () => {
  it('answers a request with its handler, echoing the request_id; a handler that throws gets an error response', async () => {
    const { ch, written } = channel()
    ch.handle('echo', (request) => ({ got: request.value }))
    ch.handle('fail', () => {
      throw new Error('It cannot be done.')
    })
    ch.receive({ type: 'control_request', request_id: 'r1', request: { subtype: 'echo', value: 7 } })
    ch.receive({ type: 'control_request', request_id: 'r2', request: { subtype: 'fail' } })
    await tick()
    // Each request is answered when its handler is done, so answers may come in any order.
    expect(written).toHaveLength(2)
    expect(written).toEqual(
      expect.arrayContaining([
        { type: 'control_response', response: { subtype: 'success', request_id: 'r1', response: { got: 7 } } },
        { type: 'control_response', response: { subtype: 'error', request_id: 'r2', error: 'It cannot be done.' } },
      ]),
    )
  })

  it('answers a subtype it does not know at once with an error naming it and what it does answer', async () => {
    const { ch, written } = channel()
    ch.handle('interrupt', () => ({}))
    ch.receive({ type: 'control_request', request_id: 'x', request: { subtype: 'rewind_files' } })
    expect(written).toEqual([
      {
        type: 'control_response',
        response: { subtype: 'error', request_id: 'x', error: 'Rein does not support the control request "rewind_files"; it answers interrupt.' },
      },
    ])
  })

  it('matches answers to its own requests by id, and reports an answer for an id it never sent', async () => {
    const { ch, written, reported } = channel()
    const asked = ch.request({ subtype: 'hook_callback', callback_id: 'h' })
    const id = written[0].request_id as string
    expect(written[0]).toEqual({ type: 'control_request', request_id: id, request: { subtype: 'hook_callback', callback_id: 'h' } })
    ch.receive({ type: 'control_response', response: { subtype: 'success', request_id: 'nobody', response: {} } })
    expect(reported).toEqual(['A control_response for request "nobody" answers nothing Rein asked (or asked and gave up on); it was ignored.'])
    ch.receive({ type: 'control_response', response: { subtype: 'success', request_id: id, response: { continue: true } } })
    await expect(asked).resolves.toEqual({ continue: true })
    const failing = ch.request({ subtype: 'mcp_message' })
    ch.receive({ type: 'control_response', response: { subtype: 'error', request_id: written[1].request_id as string, error: 'no such server' } })
    await expect(failing).rejects.toThrow('The SDK answered mcp_message with an error: no such server')
  })

  it('gives up on a request after its timeout with one sentence, cancels it, and ignores a late answer', async () => {
    const { ch, written, reported } = channel()
    await expect(ch.request({ subtype: 'hook_callback' }, { timeoutMs: 20 })).rejects.toThrow('The SDK did not answer the hook_callback request within 0.02 s.')
    expect(written[1]).toEqual({ type: 'control_cancel_request', request_id: written[0].request_id })
    ch.receive({ type: 'control_response', response: { subtype: 'success', request_id: written[0].request_id as string, response: {} } })
    expect(reported).toHaveLength(1)
  })

  it('rejects what is still pending when the input closes, and refuses new requests after', async () => {
    const { ch } = channel()
    const pending = ch.request({ subtype: 'can_use_tool' })
    ch.close()
    await expect(pending).rejects.toThrow("The SDK's input closed before it answered the can_use_tool request.")
    await expect(ch.request({ subtype: 'can_use_tool' })).rejects.toThrow("the SDK's input has closed")
  })
})

describe('control lines on stream-json input', () => {
  it('reads the three control line types, and says what is wrong with a malformed one', () => {
    expect(parseInputLine('{"type":"control_request","request_id":"a","request":{"subtype":"interrupt"}}', 1)).toEqual({
      control: { type: 'control_request', request_id: 'a', request: { subtype: 'interrupt' } },
    })
    expect(parseInputLine('{"type":"control_cancel_request","request_id":"a"}', 2)).toEqual({ control: { type: 'control_cancel_request', request_id: 'a' } })
    expect(parseInputLine('{"type":"control_request","request_id":"b","request":{}}', 3)).toEqual({
      problem: 'Line 3 of standard input is a malformed control_request (request.subtype: Invalid input: expected string, received undefined); it was ignored.',
      requestId: 'b',
    })
    expect(parseInputLine('{"type":"control_response","response":{"subtype":"maybe"}}', 4)).toMatchObject({ problem: expect.stringMatching(/^Line 4 .* malformed control_response/) })
  })

  it('hands control lines to the channel at once, keeps user messages in order, and answers a malformed request with an error', async () => {
    const { ch, written, reported } = channel()
    ch.handle('ping', () => ({ pong: true }))
    const input = Readable.from([
      '{"type":"user","message":{"role":"user","content":"one"}}\n',
      '{"type":"control_request","request_id":"p","request":{"subtype":"ping"}}\n',
      '{"type":"control_request","request_id":"bad","request":[]}\nnot json\n',
      '{"type":"user","message":{"role":"user","content":"two"}}\n',
    ])
    const pump = new InputPump(input, 1 << 20, ch, (m) => reported.push(m), (l) => written.push(l as Written))
    const texts: string[] = []
    for await (const m of pump.messages()) texts.push(m.content.map((b) => (b.type === 'text' ? b.text : '')).join(''))
    expect(texts).toEqual(['one', 'two'])
    expect(written.map((w) => [w.response.subtype, w.response.request_id])).toEqual([
      ['success', 'p'],
      ['error', 'bad'],
    ])
    expect(reported).toHaveLength(2)
    expect(reported[1]).toMatch(/^Line 4 of standard input is not JSON/)
  })
})

describe('the control session before the agent opens', () => {
  /** A session over the given stdin lines, with what it wrote and reported. */
  function session(lines: unknown[], permissionPromptTool?: string) {
    const written: Written[] = []
    const reported: string[] = []
    const input = Readable.from(lines.map((l) => `${JSON.stringify(l)}\n`))
    const control = new ControlSession({ input, lineLimit: 1 << 20, cwd: '/work', write: (l) => written.push(l as Written), report: (m) => reported.push(m), permissionPromptTool })
    return { control, written, reported }
  }
  const init = (request: Record<string, unknown>) => ({ type: 'control_request', request_id: 'i', request: { subtype: 'initialize', ...request } })

  it('an initialize sent first becomes the SDK MCP servers and hooks the agent opens with', async () => {
    const { control } = session([init({ sdkMcpServers: ['calc'], hooks: { Stop: [{ hookCallbackIds: ['s'] }] } })])
    const extras = await control.extras()
    expect(extras.mcpServers.map((s) => [s.name, s.origin, typeof s.transport])).toEqual([['calc', 'sdk', 'function']])
    expect(extras.extensions.map((e) => e.name)).toEqual(['sdk-hooks'])
  })

  it('an initialize after the first user message says its hooks and servers were not registered', async () => {
    const { control, reported } = session([{ type: 'user', message: { role: 'user', content: 'hi' } }, init({ sdkMcpServers: ['calc'] })], 'mcp__perm__ask')
    expect(await control.extras()).toEqual({ mcpServers: [], extensions: [], agentTypes: [], configServers: [] })
    await tick()
    expect(reported).toEqual([
      '--permission-prompt-tool mcp__perm__ask is not supported (only stdio); calls that need permission are refused.',
      'The initialize request came after the first line of input, so its hooks, SDK MCP servers, system prompt, agents and settings were not registered; send it first.',
    ])
  })

  it("an initialize's system prompt and agents become the agent's, and a bad agent alone is left out with a sentence", async () => {
    const agents = {
      reviewer: { description: 'Reviews code', prompt: 'Review it.', tools: ['Read', 'Grep'], model: 'sonnet' },
      auditor: { description: 'Audits', prompt: 'Audit it.', disallowedTools: ['Bash', 'Write', 'Edit'] },
      broken: { description: 'No prompt' },
    }
    const { control, reported } = session([init({ systemPrompt: ['You are a release bot.', '__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__', 'Today is Tuesday.'], appendSystemPrompt: 'Be brief.', agents })])
    const extras = await control.extras()
    expect(extras.systemPrompt).toEqual({ replace: 'You are a release bot.\n\nToday is Tuesday.', append: 'Be brief.' })
    expect(extras.agentTypes.map((t) => [t.name, t.tools, t.model])).toEqual([
      ['reviewer', ['read', 'grep'], undefined],
      ['auditor', expect.not.arrayContaining(['bash', 'write', 'edit']), undefined],
    ])
    expect(extras.agentTypes[1].tools).toEqual(expect.arrayContaining(['read', 'grep', 'glob']))
    expect(reported).toEqual(['The SDK\'s agents in initialize: agent "broken" needs a "description" and a "prompt", both text. It was left out.'])
  })

  it("the SDK's default (an empty custom prompt) keeps Rein's prompt; the preset's append alone follows it", async () => {
    expect((await session([init({ systemPrompt: [''] })]).control.extras()).systemPrompt).toBeUndefined()
    expect((await session([init({ appendSystemPrompt: 'Cite files.' })]).control.extras()).systemPrompt).toEqual({ append: 'Cite files.' })
    const { control, reported } = session([init({ jsonSchema: { type: 'object' } })])
    await control.extras()
    expect(reported).toEqual(["The SDK's jsonSchema (structured output) is not supported and was ignored; the result is the model's text."])
  })

  it('settings, disallowedTools, managed deny rules and servers sent in initialize instead of as flags are used as the flags would be', async () => {
    const { control, reported } = session([
      init({
        settings: { permissions: { allow: ['Read'] }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] } },
        disallowedTools: ['WebFetch'],
        managedSettings: { permissions: { deny: ['Bash(curl:*)'], ask: ['Write'] }, model: 'not a restriction' },
        mcpServers: { files: { command: 'node', args: ['files.js'] }, broken: { args: [] } },
      }),
    ])
    const extras = await control.extras()
    expect(extras.settingsOverlay).toEqual({ permissions: { allow: ['Read'], deny: ['WebFetch', 'Bash(curl:*)'], ask: ['Write'] }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] } })
    expect(extras.flagHooks).toEqual({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] }, from: '<initialize settings>' })
    expect(extras.mcpServers.map((s) => [s.name, s.origin])).toEqual([['files', 'mcp-config']])
    expect(reported).toEqual([expect.stringMatching(/^MCP server "broken" in initialize .+ \(The SDK's mcpServers in initialize\.\)$/)])
  })

  it('initialize settings that are not an object are one sentence, and the session still opens', async () => {
    const { control, reported } = session([init({ settings: 'nowhere.json', disallowedTools: 'Bash' })])
    const extras = await control.extras()
    expect(extras.settingsOverlay).toBeUndefined()
    expect(reported).toEqual([
      expect.stringMatching(/^The SDK's settings in initialize were not used: --settings \/work\/nowhere\.json: no such file/),
      "The SDK's disallowedTools in initialize is not a list of rules, so it was not used.",
    ])
  })

  it('a second initialize is refused with an error response', async () => {
    const { control, written } = session([init({}), { ...init({}), request_id: 'again' }])
    await control.extras()
    await tick()
    expect(written).toEqual([
      { type: 'control_response', response: { subtype: 'error', request_id: 'again', error: 'This session is already initialized; Rein takes one initialize request per run.' } },
    ])
  })
})

describe('SDK MCP servers through ExchangeTransport', () => {
  /** An in-process MCP server reached only by request and reply, as an SDK program's server is through mcp_message. */
  async function exchangeTo(server: McpServer) {
    const [here, there] = InMemoryTransport.createLinkedPair()
    await server.connect(there)
    const waiting = new Map<string | number, (m: JSONRPCMessage) => void>()
    here.onmessage = (m) => {
      if ('id' in m && m.id !== undefined) waiting.get(m.id)?.(m)
    }
    await here.start()
    return async (message: JSONRPCMessage): Promise<JSONRPCMessage | undefined> => {
      if (!isJSONRPCRequest(message)) {
        await here.send(message)
        return { jsonrpc: '2.0', id: 0, result: {} }
      }
      const reply = new Promise<JSONRPCMessage>((resolve) => waiting.set(message.id, resolve))
      await here.send(message)
      return reply
    }
  }

  it('lets a normal MCP client list and call the tools', async () => {
    const server = new McpServer({ name: 'calc', version: '1.0.0' })
    server.registerTool('add', { description: 'Adds', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))
    const client = new Client({ name: 'rein', version: '0' })
    await client.connect(new ExchangeTransport(await exchangeTo(server)))
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['add'])
    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toMatchObject({ content: [{ type: 'text', text: '5' }] })
    await client.close()
  })

  it('fails a request at once with the exchange failure when the SDK answers with an error', async () => {
    const errors: string[] = []
    const transport = new ExchangeTransport(async () => {
      throw new Error('The SDK answered mcp_message with an error: SDK MCP server not found: calc')
    })
    transport.onerror = (e) => errors.push(e.message)
    const client = new Client({ name: 'rein', version: '0' })
    await expect(client.connect(transport)).rejects.toThrow('SDK MCP server not found: calc')
    expect(errors).toEqual(['The SDK answered mcp_message with an error: SDK MCP server not found: calc'])
  })
})

describe('hook callbacks and can_use_tool', () => {
  it('registers one handler per callback id for the events Rein runs and names the others', () => {
    const { ch } = channel()
    const hooks = sdkHooks(
      { PreToolUse: [{ matcher: 'Write|Edit', hookCallbackIds: ['h1', 'h2'] }], TeammateIdle: [{ hookCallbackIds: ['h3'] }] },
      ch,
      '/work',
    )
    expect(hooks.definitions.map((d) => [d.event, d.command, d.matches('Write'), d.matches('Bash')])).toEqual([
      ['PreToolUse', 'SDK callback h1', true, false],
      ['PreToolUse', 'SDK callback h2', true, false],
    ])
    expect(hooks.ignored).toEqual(['TeammateIdle'])
  })

  it('a callback that never answers times out as a hook that hung, so the event goes on without it', async () => {
    const { ch, written } = channel()
    const [definition] = sdkHooks({ PreToolUse: [{ hookCallbackIds: ['slow'], timeout: 1 }] }, ch, '/work').definitions
    const result = await definition.run?.(JSON.stringify({ hook_event_name: 'PreToolUse', tool_use_id: 'call_1' }), 30)
    expect(result).toMatchObject({ timedOut: true, exitCode: null })
    expect(written[0].request).toEqual({ subtype: 'hook_callback', callback_id: 'slow', input: { hook_event_name: 'PreToolUse', tool_use_id: 'call_1' }, tool_use_id: 'call_1' })
    expect(written[1].type).toBe('control_cancel_request')
  })

  const request: PermissionRequest = {
    call: { turn: 1, step: 1, callId: 'c1', name: 'write', arguments: '{"file_path":"a","content":"x"}', input: { file_path: 'a', content: 'x' }, tool: { peerNames: { claudeCode: 'Write' } } as never },
    reason: 'Write a',
    suggestedRule: 'Write(a)',
  }

  /** Asks once, answering the can_use_tool request with `answer`. */
  async function ask(answer: Record<string, unknown>) {
    const { ch, written, reported } = channel()
    let interrupted = 0
    const updates: [unknown, string][] = []
    const asking = sdkPermissionAsker(ch, () => interrupted++, (m) => reported.push(m), (raw, by) => updates.push([raw, by]))(request, new AbortController().signal)
    ch.receive({ type: 'control_response', response: { subtype: 'success', request_id: written[0].request_id as string, response: answer } })
    const result = await asking
    await tick()
    return { result, sent: written[0].request as Written, interrupted, reported, updates }
  }

  it("asks with Claude Code's tool name and a suggestion, and applies allow with updatedInput", async () => {
    const { result, sent } = await ask({ behavior: 'allow', updatedInput: { file_path: 'a', content: 'y' } })
    expect(sent).toMatchObject({
      subtype: 'can_use_tool',
      tool_name: 'Write',
      input: { file_path: 'a', content: 'x' },
      tool_use_id: 'c1',
      permission_suggestions: [{ type: 'addRules', rules: [{ toolName: 'Write', ruleContent: 'a' }], behavior: 'allow', destination: 'session' }],
    })
    expect(result).toEqual({ outcome: 'allow-once', arguments: '{"file_path":"a","content":"y"}', by: "the SDK host's canUseTool" })
  })

  it("hands an allow's updatedPermissions on to be applied, and a deny's never", async () => {
    const rules = [{ type: 'addRules', rules: [{ toolName: 'Write', ruleContent: 'a' }], behavior: 'allow', destination: 'localSettings' }]
    expect((await ask({ behavior: 'allow', updatedPermissions: rules })).updates).toEqual([[rules, "the SDK host's canUseTool"]])
    expect((await ask({ behavior: 'deny', message: 'No.', updatedPermissions: rules })).updates).toEqual([])
  })

  it('applies deny with its message, ends the turn when asked to interrupt, and refuses an answer of the wrong shape', async () => {
    expect(await ask({ behavior: 'deny', message: 'No.', interrupt: true })).toMatchObject({ result: { outcome: 'deny', note: 'No.' }, interrupted: 1 })
    const wrong = await ask({ behavior: 'perhaps' })
    expect(wrong.result.outcome).toBe('deny')
    expect(wrong.reported).toEqual(["The SDK's answer to can_use_tool for write is not a PermissionResult (behavior \"allow\" or \"deny\"), so the call was refused."])
  })

  it('maps thinking budgets to effort: 0 off, small low, up to 32,000 high, more max, null back to the start', () => {
    expect([0, 1024, 4096, 4097, 32_000, 32_001, 128_000].map((n) => effortForBudget(n, 'high'))).toEqual(['off', 'low', 'low', 'high', 'high', 'max', 'max'])
    expect(effortForBudget(null, 'low')).toBe('low')
  })
})
