import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { claudeRun, settingSourcesArg } from '../../src/cli/print/claude-flags.js'
import { loadSettingsReport } from '../../src/config/settings.js'
import { loadHookCatalog } from '../../src/hooks/catalog.js'
import { hookFiles } from '../../src/hooks/discovery.js'
import { loadMcpConfig } from '../../src/mcp/load.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

const json = (file: string, value: unknown): void => {
  mkdirSync(join(file, '..'), { recursive: true })
  writeFileSync(file, JSON.stringify(value))
}

const hook = (command: string) => ({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command }] }] } })

describe('--setting-sources picks the settings layers', () => {
  it('takes a comma list of user, project and local; "" is none; anything else is one sentence', () => {
    expect(settingSourcesArg('user,project,local')).toEqual(['user', 'project', 'local'])
    expect(settingSourcesArg('project, local,project')).toEqual(['project', 'local'])
    expect(settingSourcesArg('')).toEqual([])
    expect(() => settingSourcesArg('user,policy')).toThrow(
      '--setting-sources: "policy" is not a settings source; use a comma list of user, project, local, or "" for none.',
    )
  })

  it('reads only the settings files, hook files and .mcp.json of the layers named', () => {
    const box = sandbox()
    json(join(box.home, 'settings.json'), { model: 'from-user', permissions: { allow: ['Bash(echo user)'] } })
    json(join(box.cwd, '.rein', 'settings.json'), { permissions: { deny: ['Bash(echo project)'] } })
    json(join(box.cwd, '.rein', 'settings.local.json'), { permissions: { deny: ['Bash(echo local)'] } })
    const deny = (sources?: ('user' | 'project' | 'local')[]) => {
      const { settings } = loadSettingsReport(box.cwd, box.home, { workspaceTrusted: true, ...(sources ? { sources } : {}) })
      return [settings.model, settings.permissions?.deny ?? []]
    }
    expect(deny()).toEqual(['from-user', ['Bash(echo project)', 'Bash(echo local)']])
    expect(deny(['local'])).toEqual([undefined, ['Bash(echo local)']])
    expect(deny([])).toEqual([undefined, []])

    const files = (sources?: ('user' | 'project' | 'local')[]) =>
      hookFiles({ cwd: box.cwd, home: box.home, userHome: box.home, ...(sources ? { sources } : {}) }).files.map((f) => f.path.slice(box.root.length))
    expect(files(['user'])).toEqual(['/home/.claude/settings.json', '/home/.codex/hooks.json', '/home/settings.json'])
    expect(files(['local'])).toEqual(['/project/.claude/settings.local.json', '/project/.rein/settings.local.json'])
    expect(files(['project'])).toEqual(['/project/.claude/settings.json', '/project/.codex/hooks.json', '/project/.rein/settings.json'])
    expect(files([])).toEqual([])

    json(join(box.cwd, '.mcp.json'), { mcpServers: { files: { command: 'node' } } })
    const servers = (skipProjectFile: boolean) =>
      loadMcpConfig({ cwd: box.cwd, settings: {}, home: box.home, trustProject: true, skipProjectFile }).servers.map((s) => s.name)
    expect(servers(false)).toEqual(['files'])
    expect(servers(true)).toEqual([])
  })
})

describe('hooks in --settings', () => {
  it('are read after every hook file as the user own, trusted ones, and named by where they came from', () => {
    const box = sandbox()
    // An untrusted workspace: its hooks do not run, the --settings ones do.
    json(join(box.cwd, '.claude', 'settings.json'), hook('echo project'))
    const catalog = loadHookCatalog({ cwd: box.cwd, home: box.home, userHome: box.home, flagHooks: { hooks: hook('echo flag').hooks, from: '<--settings>' } })
    expect(catalog.active.map((d) => [d.command, d.file.path, d.file.scope])).toEqual([['echo flag', '<--settings>', 'user']])
    expect(catalog.untrusted.map((d) => d.command)).toEqual(['echo project'])
  })

  it('claudeRun hands them to the hook loader with the file they came from, beside --setting-sources and --strict-mcp-config', () => {
    const box = sandbox()
    json(join(box.cwd, 'extra.json'), { ...hook('echo from-file'), permissions: { deny: ['WebFetch'] } })
    const said: string[] = []
    const run = claudeRun({ settings: 'extra.json', settingSources: 'project', strictMcpConfig: true }, box.cwd, (m) => said.push(m))
    expect(run.open).toEqual({ flagHooks: { hooks: hook('echo from-file').hooks, from: join(box.cwd, 'extra.json') }, settingSources: ['project'], strictMcpConfig: true })
    expect(run.settingsOverlay?.permissions).toEqual({ deny: ['WebFetch'] })
    expect(said).toEqual([])
  })

  it("--managed-settings keeps only the policy's deny and ask rules; the SDK's initialize flags are accepted without a word", () => {
    const box = sandbox()
    const said: string[] = []
    const managed = JSON.stringify({ permissions: { deny: ['Bash(curl:*)'], ask: ['Write'], allow: ['Bash'] }, model: 'x' })
    const run = claudeRun({ managedSettings: managed }, box.cwd, (m) => said.push(m))
    expect(run.settingsOverlay).toEqual({ permissions: { deny: ['Bash(curl:*)'], ask: ['Write'] } })
    expect(said).toEqual([])
  })

  it('a malformed hooks value is one problem, and the rest still loads', () => {
    const box = sandbox()
    const catalog = loadHookCatalog({ cwd: box.cwd, home: box.home, userHome: box.home, flagHooks: { hooks: 'run everything', from: '<--settings>' } })
    expect(catalog.active).toEqual([])
    expect(catalog.problems).toEqual(['Skipped the hooks of <--settings>: "hooks" must be an object of event names; fix it to load them.'])
  })
})

describe('the settings flags in a real run', () => {
  it('--setting-sources drops the user layer, --settings hooks run, --strict-mcp-config keeps only --mcp-config servers', async () => {
    const box = sandbox()
    const marker = (name: string) => join(box.root, name)
    json(join(box.home, '.claude', 'settings.json'), hook(`touch ${marker('user-hook')}`))
    json(join(box.cwd, '.mcp.json'), { mcpServers: { project: { command: 'true' } } })
    mock = await startMockModel({ script: [{ text: 'Done.' }] })
    const settings = JSON.stringify(hook(`cat > ${marker('flag-hook')}`))
    const mcp = JSON.stringify({ mcpServers: { given: { command: 'true' } } })
    const r = await runCli(
      ['-p', 'hello', '--output-format', 'stream-json', '--verbose', '--setting-sources=project', `--settings=${settings}`, '--strict-mcp-config', '--mcp-config', mcp, '--trust-project'],
      { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) },
    )
    expect(r.code, r.stderr).toBe(0)
    expect(existsSync(marker('user-hook'))).toBe(false)
    expect(JSON.parse(readFileSync(marker('flag-hook'), 'utf8'))).toMatchObject({ hook_event_name: 'UserPromptSubmit', prompt: 'hello' })
    const init = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; subtype?: string; mcp_servers?: { name: string }[] })
      .find((l) => l.type === 'system' && l.subtype === 'init')
    expect(init?.mcp_servers?.map((s) => s.name)).toEqual(['given'])
    expect(r.stderr).not.toMatch(/setting-sources|strict-mcp-config/)
  }, 60_000)

  it("the SDK's other flags are accepted: those that change nothing say so once, those Rein already does say nothing", async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'Hi.' }] })
    const r = await runCli(['-p', 'hi', '--await-initialize', '--initialize-fields=settings,disallowedTools', '--channels=beta', '--session-mirror', '--no-session-persistence'], {
      cwd: box.cwd,
      env: cliEnv({ url: mock.url, home: box.home }),
    })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('Hi.\n')
    expect(r.stderr.trim().split('\n')).toEqual([
      'rein: --no-session-persistence has no effect in Rein (in Claude Code it would keep the session out of the store (Rein always logs it)).',
      'rein: --channels has no effect in Rein (in Claude Code it would subscribe to a release channel).',
      "rein: --session-mirror has no effect in Rein (in Claude Code it would mirror the transcript to the SDK's session store).",
    ])
  }, 60_000)

  const hostile: [string, string[], RegExp][] = [
    ['an unknown settings source', ['--setting-sources', 'user,everything'], /^rein: --setting-sources: "everything" is not a settings source; use a comma list of user, project, local, or "" for none\.\n$/],
    ['a --settings path that does not exist', ['--settings', 'nowhere.json'], /^rein: --settings \/.+nowhere\.json: no such file; pass a JSON file or JSON text\.\n$/],
    ['malformed --settings JSON', ['--settings', '{"hooks": }'], /^rein: --settings: the text is not valid JSON \(.+\)\.\n$/],
  ]
  for (const [what, args, stderr] of hostile) {
    it(`${what} ends in one sentence before anything starts`, async () => {
      const box = sandbox()
      const r = await runCli(['-p', 'hi', ...args], { cwd: box.cwd, env: cliEnv({ url: 'http://127.0.0.1:9', home: box.home }) })
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(stderr)
      expect(existsSync(join(box.home, 'sessions'))).toBe(false)
    })
  }
})
