import { afterEach, describe, expect, it } from 'vitest'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { CLI, cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { compileAsSdkMessages } from './claude-sdk-types.js'

/**
 * The real Claude Agent SDK (interop/claude-agent-sdk, installed without its bundled binary) driving Rein: its
 * `pathToClaudeCodeExecutable` is a script that only execs the built CLI, so Rein receives exactly the SDK's spawn
 * line (`--output-format stream-json --verbose --input-format stream-json …`, never `-p`).
 */
const SDK = resolve(import.meta.dirname, '../../interop/claude-agent-sdk/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs')

type SdkMessage = Record<string, unknown> & { type: string }
type Query = AsyncIterable<SdkMessage> & { close?: () => void }
type QueryFn = (args: { prompt: string | AsyncIterable<unknown>; options: Record<string, unknown> }) => Query

async function sdkQuery(): Promise<QueryFn> {
  if (!existsSync(SDK)) throw new Error('The Claude Agent SDK is not installed; run `npm ci --prefix interop/claude-agent-sdk --omit=optional`.')
  return ((await import(pathToFileURL(SDK).href)) as { query: QueryFn }).query
}

/** A script that execs the built Rein with whatever arguments it was given, and records them one per line. */
function reinExecutable(dir: string): { path: string; args: () => string[] } {
  const path = join(dir, 'claude')
  const argsFile = join(dir, 'claude-args.txt')
  writeFileSync(path, `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\nexec '${process.execPath}' '${CLI}' "$@"\n`)
  chmodSync(path, 0o755)
  return { path, args: () => readFileSync(argsFile, 'utf8').split('\n').filter(Boolean) }
}

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

describe('a Claude Agent SDK program run against Rein with only pathToClaudeCodeExecutable changed', () => {
  it('query() runs prompt → Bash tool → result, and every message the SDK yields type-checks as SDKMessage', async () => {
    const query = await sdkQuery()
    const box = sandbox()
    writeFileSync(join(box.cwd, 'notes.txt'), 'alpha\nbeta\n')
    // A custom command, a skill and an agent file of the user's (in REIN_HOME, which is also HOME here), which the
    // init line lists.
    const claudeDir = box.home
    mkdirSync(join(claudeDir, 'commands'), { recursive: true })
    writeFileSync(join(claudeDir, 'commands', 'hello.md'), '---\ndescription: Say hello\n---\nSay hello to $ARGUMENTS.\n')
    mkdirSync(join(claudeDir, 'skills', 'greet'), { recursive: true })
    writeFileSync(join(claudeDir, 'skills', 'greet', 'SKILL.md'), '---\nname: greet\ndescription: Greets people warmly\n---\nGreet them.\n')
    mkdirSync(join(claudeDir, 'agents'), { recursive: true })
    writeFileSync(join(claudeDir, 'agents', 'finder.md'), '---\nname: finder\ndescription: Finds words in files\n---\nYou find words.\n')
    mock = await startMockModel({
      script: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'grep -n beta notes.txt' } }] },
        { text: 'beta is on line 2.' },
      ],
    })
    const exe = reinExecutable(box.root)
    const stderr: string[] = []
    const messages: SdkMessage[] = []
    for await (const message of query({
      prompt: 'Where is beta?',
      options: {
        pathToClaudeCodeExecutable: exe.path,
        cwd: box.cwd,
        env: cliEnv({ url: mock.url, home: box.home }),
        allowedTools: ['Bash(grep:*)'],
        permissionMode: 'acceptEdits',
        model: 'sonnet',
        stderr: (text: string) => stderr.push(text),
      },
    })) {
      messages.push(message)
    }

    // Rein got the SDK's own line, with no -p.
    expect(exe.args().slice(0, 5)).toEqual(['--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'])
    expect(exe.args()).not.toContain('-p')
    const init = messages[0]
    expect(init).toMatchObject({ type: 'system', subtype: 'init', permissionMode: 'acceptEdits', model: 'deepseek-flash' })
    expect(init.tools).toEqual(expect.arrayContaining(['Bash', 'Read', 'Edit', 'Write', 'Grep', 'Glob', 'Task', 'TodoWrite', 'WebFetch']))
    expect(init).toMatchObject({ skills: ['greet'], plugins: [] })
    expect(init.slash_commands).toEqual(expect.arrayContaining(['hello', 'greet']))
    expect(init.agents).toEqual(expect.arrayContaining(['finder', 'explore']))
    expect(init).not.toHaveProperty('plugin_errors')
    const toolUse = messages.flatMap((m) => (m.type === 'assistant' ? ((m.message as { content: { type: string; name?: string; input?: unknown }[] }).content ?? []) : []))
    expect(toolUse.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'Bash', input: { command: 'grep -n beta notes.txt' } })
    const toolResult = messages.find((m) => m.type === 'user' && JSON.stringify(m.message).includes('tool_result'))
    expect(JSON.stringify(toolResult)).toContain('2:beta')
    const result = messages.at(-1)!
    expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'beta is on line 2.', permission_denials: [] })
    expect(stderr.join('')).toContain('--model sonnet is a Claude model; running deepseek-flash')
    expect(await compileAsSdkMessages(messages)).toBe('')
  }, 120_000)

  it('multi-turn streaming input: two user messages from an async iterable give two results in one session', async () => {
    const query = await sdkQuery()
    const box = sandbox()
    mock = await startMockModel({ script: [{ match: 'first', text: 'one' }, { match: 'second', text: 'two' }] })
    const exe = reinExecutable(box.root)
    let release: () => void = () => undefined
    const secondMayGo = new Promise<void>((r) => (release = r))
    const user = (text: string) => ({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' })
    async function* prompts() {
      yield user('first question')
      await secondMayGo
      yield user('second question')
    }
    const results: SdkMessage[] = []
    const q = query({ prompt: prompts(), options: { pathToClaudeCodeExecutable: exe.path, cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) } })
    for await (const message of q) {
      if (message.type !== 'result') continue
      results.push(message)
      if (results.length === 1) release()
      if (results.length === 2) break
    }
    expect(results.map((r) => r.result)).toEqual(['one', 'two'])
    expect(results[0].session_id).toBe(results[1].session_id)
  }, 120_000)
})

describe('a `claude -p` script run against Rein', () => {
  it('claude -p --output-format stream-json --verbose --allowedTools=Bash runs the allowed command and prints Claude Code lines', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo made > out.txt' } }] }, { text: 'Made it.' }] })
    const r = await runCli(['-p', 'make out.txt', '--output-format', 'stream-json', '--verbose', '--allowedTools=Bash'], {
      cwd: box.cwd,
      env: cliEnv({ url: mock.url, home: box.home }),
    })
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(box.cwd, 'out.txt'), 'utf8')).toBe('made\n')
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as SdkMessage)
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init' })
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Made it.' })
    // --verbose changes nothing in Rein, so nothing is said about it.
    expect(r.stderr).toBe('')
    expect(await compileAsSdkMessages(lines)).toBe('')
  }, 60_000)

  it('--plugin-dir loads the plugin: the init line lists it, and nothing is said on stderr', async () => {
    const box = sandbox()
    mkdirSync(join(box.cwd, 'my-plugin', '.claude-plugin'), { recursive: true })
    writeFileSync(join(box.cwd, 'my-plugin', '.claude-plugin', 'plugin.json'), '{"name": "my-plugin"}')
    mock = await startMockModel({ script: [{ text: 'Hi.' }] })
    const r = await runCli(['-p', 'hi', '--output-format', 'stream-json', '--verbose', '--plugin-dir', 'my-plugin'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    const init = JSON.parse(r.stdout.split('\n')[0]) as SdkMessage
    expect(init.plugins).toEqual([{ name: 'my-plugin', path: join(box.cwd, 'my-plugin') }])
    expect(init).not.toHaveProperty('plugin_errors')
    expect(await compileAsSdkMessages([init])).toBe('')
  }, 60_000)
})
