import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { claudeRun, modelArg, permissionModeArg, toolListArg } from '../../src/cli/print/claude-flags.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

describe('Claude Code flags in Rein terms', () => {
  it('mode names map to Rein modes, and an unknown one is refused with the list', () => {
    expect(['default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk'].map(permissionModeArg)).toEqual(['default', 'accept-edits', 'plan', 'bypass', 'default'])
    expect(permissionModeArg('accept-edits')).toBe('accept-edits')
    expect(() => permissionModeArg('yolo')).toThrow(/expected one of default, acceptEdits/)
  })

  it('tool lists split on commas and spaces but never inside parentheses, and repeated flags add up', () => {
    expect(toolListArg('Bash(git log:*) Edit,Read', undefined)).toEqual(['Bash(git log:*)', 'Edit', 'Read'])
    expect(toolListArg('Write', ['Bash'])).toEqual(['Bash', 'Write'])
    expect(toolListArg('', undefined)).toEqual([])
  })

  it('Claude model names become the DeepSeek model DeepSeek serves for them, with a notice; other ids pass', () => {
    const said: string[] = []
    expect(modelArg('opus', (m) => said.push(m))).toBe('deepseek-v4-pro')
    expect(modelArg('sonnet', (m) => said.push(m))).toBe('deepseek-flash')
    expect(modelArg('claude-haiku-4-5', (m) => said.push(m))).toBe('deepseek-flash')
    expect(modelArg('deepseek-v4-pro', (m) => said.push(m))).toBe('deepseek-v4-pro')
    expect(said).toHaveLength(3)
    expect(said[0]).toBe('--model opus is a Claude model; running deepseek-v4-pro, the DeepSeek model DeepSeek serves for it.')
  })

  it('the flags become allow and deny rules, workspace directories, servers, prompt text and a tool list', () => {
    const box = sandbox()
    mkdirSync(join(box.cwd, 'other'))
    const said: string[] = []
    const run = claudeRun(
      {
        dangerouslySkipPermissions: true,
        allowedTools: ['Bash(npm test)'],
        disallowedTools: ['WebFetch'],
        addDir: ['other'],
        settings: '{"permissions": {"deny": ["Read(secret.txt)"]}}',
        mcpConfig: ['{"mcpServers": {"files": {"command": "node", "args": ["server.js"]}}}'],
        systemPrompt: 'Be brief.',
        appendSystemPrompt: 'Answer in French.',
        tools: ['Read', 'bash'],
        maxThinkingTokens: 0,
        settingSources: 'user,project',
        replayUserMessages: true,
      },
      box.cwd,
      (m) => said.push(m),
    )
    expect(run).toMatchObject({
      permissionMode: 'bypass',
      allow: ['Bash(npm test)'],
      settingsOverlay: { permissions: { deny: ['Read(secret.txt)', 'WebFetch'], additionalDirectories: [join(box.cwd, 'other')] } },
      mcpServers: [{ name: 'files', command: 'node', args: ['server.js'], origin: 'mcp-config' }],
      systemPrompt: { replace: 'Be brief.', append: 'Answer in French.' },
      builtinTools: ['read', 'bash'],
      effort: 'off',
      open: { settingSources: ['user', 'project'] },
    })
    // --replay-user-messages is what Rein's stream-json always does: nothing to say.
    expect(said).toEqual([])
    // A flag that changes nothing says so once.
    const ignored: string[] = []
    claudeRun({ fallbackModel: 'sonnet', betas: 'x' } as Parameters<typeof claudeRun>[0], box.cwd, (m) => ignored.push(m))
    expect(ignored).toEqual([
      '--fallback-model has no effect in Rein (in Claude Code it would switch models when the first is overloaded).',
      '--betas has no effect in Rein (in Claude Code it would send Anthropic beta headers).',
    ])
  })
})

describe('bad Claude Code flags end in one sentence and exit 2', () => {
  const cases: [string, string[], RegExp][] = [
    ['an unknown flag', ['-p', 'hi', '--frobnicate'], /^error: unknown option '--frobnicate'\n\(rein --help lists the options\)\n$/],
    ['a bad mode name', ['-p', 'hi', '--permission-mode', 'yolo'], /argument 'yolo' is invalid\. expected one of default, acceptEdits/],
    ['malformed --agents JSON', ['-p', 'hi', '--agents', '{"a": '], /^rein: --agents is not valid JSON \(.+\); pass \{"name"/],
    ['--agents without a prompt', ['-p', 'hi', '--agents', '{"a": {"description": "x"}}'], /^rein: --agents: agent "a" needs a "description" and a "prompt", both text\.\n$/],
    ['--mcp-config naming a missing file', ['-p', 'hi', '--mcp-config', 'nowhere.json'], /^rein: --mcp-config \/.+nowhere\.json: no such file; pass a JSON file or JSON text\.\n$/],
    ['--mcp-config with a server that is not one', ['-p', 'hi', '--mcp-config', '{"mcpServers": {"x": 3}}'], /^rein: --mcp-config: .+\n$/],
    ['--settings with invalid JSON', ['-p', 'hi', '--settings', '{"permissions": '], /^rein: --settings: the text is not valid JSON \(.+\)\.\n$/],
    ['--tools naming no tool', ['-p', 'hi', '--tools', 'Teleport'], /^rein: --tools: "Teleport" is not a built-in tool; use some of .*Bash.*\n$/],
  ]
  for (const [what, args, stderr] of cases) {
    it(`${what}`, async () => {
      const box = sandbox()
      const r = await runCli(args, { cwd: box.cwd, env: cliEnv({ url: 'http://127.0.0.1:9', home: box.home }) })
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(stderr)
      expect(r.stdout).toBe('')
      // Nothing started: no session was opened.
      expect(existsSync(join(box.home, 'sessions'))).toBe(false)
    })
  }

  it('an invalid --mcp-config file is named with the JSON error', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'mcp.json'), '{"mcpServers": ')
    const r = await runCli(['-p', 'hi', '--mcp-config=mcp.json'], { cwd: box.cwd, env: cliEnv({ url: 'http://127.0.0.1:9', home: box.home }) })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^rein: --mcp-config: \/.+mcp\.json is not valid JSON \(.+\)\.\n$/)
  })
})

describe('Claude Code flags reach the model request', () => {
  it('--agents adds a subagent type the task tool runs, with its prompt as the child\'s instructions', async () => {
    const box = sandbox()
    const agents = { 'code.reviewer': { description: 'Reviews code', prompt: 'You review code and answer LGTM or not.', tools: ['Read', 'Grep'], model: 'sonnet' } }
    mock = await startMockModel({
      script: [
        { system: 'You are Rein, a coding agent', toolCalls: [{ name: 'task', arguments: { description: 'review', prompt: 'Review a.js', subagent_type: 'code.reviewer' } }] },
        { system: 'You review code and answer LGTM or not.', text: 'LGTM' },
        { system: 'You are Rein, a coding agent', text: 'The reviewer says LGTM.' },
      ],
    })
    const r = await runCli(['-p', 'get a review', '--agents', JSON.stringify(agents)], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('The reviewer says LGTM.\n')
    // The child was offered only the tools its definition names.
    const child = mock.requests[1].body as { tools: { function: { name: string } }[] }
    expect(child.tools.map((t) => t.function.name).sort()).toEqual(['grep', 'read'])
  }, 60_000)

  it('--system-prompt, --append-system-prompt and --tools shape the request; --disallowedTools refuses a call', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo hi' } }] }, { text: 'Refused.' }] })
    const r = await runCli(
      ['-p', 'say hi', '--system-prompt', 'You are terse.', '--append-system-prompt=Reply in French.', '--tools', 'Bash,Read', '--disallowedTools', 'Bash', '--dangerously-skip-permissions'],
      { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) },
    )
    expect(r.code, r.stderr).toBe(0)
    const body = mock.requests[0].body as { messages: { role: string; content: string }[]; tools: { function: { name: string } }[] }
    expect(body.messages[0]).toEqual({ role: 'system', content: 'You are terse.\n\nReply in French.' })
    expect(body.tools.map((t) => t.function.name).sort()).toEqual(['bash', 'read'])
    // A deny rule holds even in bypass mode.
    const second = mock.requests[1].body as { messages: { role: string; content: unknown }[] }
    expect(JSON.stringify(second.messages.filter((m) => m.role === 'tool'))).toContain('permission denied')
  }, 60_000)
})
