import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

/** The built CLI with plugins: `--plugin-dir`, hooks and MCP servers of a plugin, `rein plugin`, workspace trust. */
const FIXTURES = resolve(import.meta.dirname, '../fixtures/plugins')
const MCP_SERVER = resolve(import.meta.dirname, '../mcp/fixtures/server.mjs')

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

type Line = Record<string, unknown>
const lines = (stdout: string): Line[] => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line)

/** Every text the model was sent in its last request's user messages. */
function userTexts(model: MockModel): string {
  const body = model.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }
  return body.messages
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n')
}

describe('rein -p with --plugin-dir', () => {
  it("runs a published plugin's namespaced command, and system/init lists the plugin, its commands and its agents", async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'Planned.' }] })
    const args = ['-p', '/feature-dev:feature-dev add a login page', '--output-format', 'stream-json', '--verbose', '--plugin-dir', join(FIXTURES, 'feature-dev'), '--plugin-dir', join(FIXTURES, 'ralph-loop')]
    const r = await runCli(args, { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code, r.stderr).toBe(0)
    // Nothing refused; the one notice is Rein's usual one for a frontmatter field it has no use for.
    expect(r.stderr).toBe('rein: Rein ignored command file fields it does not know: hide-from-slash-command-tool (2 files).\n')
    const [init] = lines(r.stdout)
    expect(init).toMatchObject({ type: 'system', subtype: 'init' })
    expect(init!.plugins).toEqual([
      { name: 'feature-dev', path: join(FIXTURES, 'feature-dev') },
      { name: 'ralph-loop', path: join(FIXTURES, 'ralph-loop'), version: '1.0.0' },
    ])
    expect(init).not.toHaveProperty('plugin_errors')
    expect(init!.slash_commands).toEqual(expect.arrayContaining(['feature-dev:feature-dev', 'ralph-loop:ralph-loop', 'ralph-loop:cancel-ralph']))
    expect(init!.agents).toEqual(expect.arrayContaining(['code-architect', 'code-explorer', 'code-reviewer']))
    const sent = userTexts(mock)
    expect(sent).toContain('# Feature Development')
    expect(sent).toContain('add a login page')
    expect(lines(r.stdout).at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Planned.' })
  }, 60_000)

  it("fires the plugin's hook with CLAUDE_PLUGIN_ROOT in its command and its environment, and lists its MCP server's tools", async () => {
    const box = sandbox()
    const plugin = join(box.root, 'tools-plugin')
    mkdirSync(join(plugin, '.claude-plugin'), { recursive: true })
    mkdirSync(join(plugin, 'hooks'))
    writeFileSync(join(plugin, '.claude-plugin', 'plugin.json'), '{"name": "kit", "version": "0.1.0"}')
    writeFileSync(
      join(plugin, 'hooks', 'hooks.json'),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'printf "%s|%s" "${CLAUDE_PLUGIN_ROOT}" "$CLAUDE_PLUGIN_ROOT" > hook-saw.txt' }] }] } }),
    )
    writeFileSync(join(plugin, '.mcp.json'), JSON.stringify({ mcpServers: { fixture: { command: process.execPath, args: [MCP_SERVER, 'stdio'], env: { FIXTURE_GREETING: 'root=${CLAUDE_PLUGIN_ROOT}' } } } }))
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'mcp__plugin_kit_fixture__whoami', arguments: {} }] }, { text: 'Done.' }] })
    const r = await runCli(['-p', 'hello', '--output-format', 'stream-json', '--permission-mode', 'bypassPermissions', '--plugin-dir', plugin], {
      cwd: box.cwd,
      env: cliEnv({ url: mock.url, home: box.home }),
    })
    expect(r.code, r.stderr).toBe(0)
    const root = realpathSync(plugin)
    expect(readFileSync(join(box.cwd, 'hook-saw.txt'), 'utf8')).toBe(`${root}|${root}`)
    const [init] = lines(r.stdout)
    expect(init!.mcp_servers).toEqual([{ name: 'plugin:kit:fixture', status: 'connected', source: 'plugin kit' }])
    expect(init!.tools).toEqual(expect.arrayContaining(['mcp__plugin_kit_fixture__echo', 'mcp__plugin_kit_fixture__whoami']))
    // The server ran with the plugin's root expanded in its environment.
    expect(JSON.stringify(mock.requests.at(-1)!.body)).toContain(`root=${root}`)
  }, 60_000)

  it("runs Anthropic's ralph-loop unchanged: the command's shell block starts the loop, and its Stop hook reads transcript_path until the promise", async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'Working on it.' }, { text: 'All fixed. <promise>DONE</promise>' }] })
    const r = await runCli(['-p', '/ralph-loop:ralph-loop Fix the bug --completion-promise DONE --max-iterations 5', '--output-format', 'stream-json', '--plugin-dir', join(FIXTURES, 'ralph-loop')], {
      cwd: box.cwd,
      env: cliEnv({ url: mock.url, home: box.home }),
    })
    expect(r.code, r.stderr).toBe(0)
    // The setup script ran from the command's ```! block (its output is in the expansion)...
    const first = mock.requests[0]!.body as { messages: { role: string; content: unknown }[] }
    expect(JSON.stringify(first.messages)).toContain('Ralph loop activated in this session!')
    // ...the Stop hook found no promise in the transcript's last assistant text and fed the prompt back...
    expect(mock.requests).toHaveLength(2)
    expect(userTexts(mock)).toContain('Fix the bug')
    // ...and, seeing the promise, let the turn end and removed its state file.
    expect(lines(r.stdout).at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'All fixed. <promise>DONE</promise>' })
    expect(existsSync(join(box.cwd, '.claude', 'ralph-loop.local.md'))).toBe(false)
  }, 60_000)

  it("an Agent SDK program's initialize answer names the plugin's commands (supportedCommands)", async () => {
    const box = sandbox()
    const input = JSON.stringify({ type: 'control_request', request_id: 'r1', request: { subtype: 'initialize' } }) + '\n'
    const r = await runCli(['--input-format', 'stream-json', '--output-format', 'stream-json', '--plugin-dir', join(FIXTURES, 'feature-dev')], {
      cwd: box.cwd,
      env: cliEnv({ url: 'http://127.0.0.1:9', home: box.home }),
      input,
    })
    const answer = lines(r.stdout).find((l) => l.type === 'control_response') as { response: { response: { commands: unknown[] } } } | undefined
    expect(answer?.response.response.commands, r.stderr).toEqual([{ name: 'feature-dev:feature-dev', description: expect.stringMatching(/^Guided feature development/), argumentHint: 'Optional feature description' }])
  }, 60_000)

  it('a --plugin-dir that is no plugin is one plugin_errors entry and one stderr sentence; the run goes on', async () => {
    const box = sandbox()
    mkdirSync(join(box.cwd, 'not-a-plugin'))
    mock = await startMockModel({ script: [{ text: 'Hi.' }] })
    const r = await runCli(['-p', 'hi', '--output-format', 'stream-json', '--plugin-dir', 'not-a-plugin'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code, r.stderr).toBe(0)
    const message = `${join(box.cwd, 'not-a-plugin')} is not a plugin: it has no .claude-plugin/plugin.json and none of commands/, agents/, skills/, hooks/hooks.json or .mcp.json.`
    expect(r.stderr).toBe(`rein: ${message}\n`)
    const [init] = lines(r.stdout)
    expect(init!.plugins).toEqual([])
    expect(init!.plugin_errors).toEqual([{ plugin: 'inline[0]', type: 'generic-error', message, path: join(box.cwd, 'not-a-plugin') }])
  }, 60_000)
})

describe('rein plugin', () => {
  it('install, list and remove from a local marketplace; the installed plugin loads in every session', async () => {
    const box = sandbox()
    const market = join(box.root, 'market')
    mkdirSync(join(market, '.claude-plugin'), { recursive: true })
    cpSync(join(FIXTURES, 'ralph-loop'), join(market, 'plugins', 'ralph-loop'), { recursive: true })
    writeFileSync(join(market, '.claude-plugin', 'marketplace.json'), JSON.stringify({ name: 'local', owner: { name: 'Me' }, plugins: [{ name: 'ralph-loop', source: './plugins/ralph-loop', version: '1.0.0' }] }))
    const env = cliEnv({ home: box.home })
    const added = await runCli(['plugin', 'marketplace', 'add', market], { cwd: box.cwd, env })
    expect(added, added.stderr).toMatchObject({ code: 0, stdout: 'Added the marketplace local (ralph-loop).\n' })
    const installed = await runCli(['plugin', 'install', 'ralph-loop@local'], { cwd: box.cwd, env })
    const path = join(box.home, 'plugins', 'installed', 'local', 'ralph-loop')
    expect(installed, installed.stderr).toMatchObject({ code: 0, stdout: `Installed ralph-loop@local 1.0.0 in ${path}.\n` })
    const listed = await runCli(['plugin', 'list'], { cwd: box.cwd, env })
    expect(listed.stdout).toBe(`ralph-loop@local 1.0.0 (installed) ${path}\n\nMarketplaces:\n- local: ${market}\n`)

    mock = await startMockModel({ script: [{ text: 'Hi.' }] })
    const run = await runCli(['-p', 'hi', '--output-format', 'stream-json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(lines(run.stdout)[0]!.plugins).toEqual([{ name: 'ralph-loop', path, version: '1.0.0' }])

    const removed = await runCli(['plugin', 'remove', 'ralph-loop'], { cwd: box.cwd, env })
    expect(removed).toMatchObject({ code: 0, stdout: 'Removed ralph-loop@local.\n' })
    const again = await runCli(['plugin', 'remove', 'ralph-loop'], { cwd: box.cwd, env })
    expect(again).toMatchObject({ code: 1, stdout: '', stderr: 'rein: No plugin ralph-loop is installed; `rein plugin list` shows those that are.\n' })
  }, 60_000)

  it("a plugin only the project's settings enable waits for workspace trust, and the notice names it", async () => {
    const box = sandbox()
    const market = join(box.root, 'market')
    mkdirSync(join(market, '.claude-plugin'), { recursive: true })
    cpSync(join(FIXTURES, 'ralph-loop'), join(market, 'plugins', 'ralph-loop'), { recursive: true })
    writeFileSync(join(market, '.claude-plugin', 'marketplace.json'), JSON.stringify({ name: 'local', plugins: [{ name: 'ralph-loop', source: './plugins/ralph-loop' }] }))
    const env = cliEnv({ home: box.home })
    expect((await runCli(['plugin', 'marketplace', 'add', market], { cwd: box.cwd, env })).code).toBe(0)
    mkdirSync(join(box.cwd, '.rein'))
    writeFileSync(join(box.cwd, '.rein', 'settings.json'), '{"enabledPlugins": {"ralph-loop@local": true}}')
    mock = await startMockModel({ script: [{ text: 'Hi.' }, { text: 'Hi again.' }] })
    const untrusted = await runCli(['-p', 'hi', '--output-format', 'stream-json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(untrusted.code, untrusted.stderr).toBe(0)
    expect(untrusted.stderr).toContain('plugin ralph-loop@local with hooks (Stop), commands running shell (/ralph-loop:ralph-loop)')
    const [init] = lines(untrusted.stdout)
    expect(init!.plugins).toEqual([])
    expect(init!.plugin_errors).toEqual([expect.objectContaining({ plugin: 'ralph-loop@local', message: expect.stringContaining('the workspace is not trusted') })])
    const trusted = await runCli(['-p', 'hi', '--output-format', 'stream-json', '--trust-project'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(lines(trusted.stdout)[0]!.plugins).toEqual([{ name: 'ralph-loop', path: join(market, 'plugins', 'ralph-loop'), version: '1.0.0' }])
  }, 60_000)
})
