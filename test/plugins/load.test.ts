import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadHookCatalog } from '../../src/hooks/catalog.js'
import { loadAgentFiles } from '../../src/prompt-files/agents/agent-files.js'
import { commandFolders, loadCommands, shownName } from '../../src/prompt-files/commands/catalog.js'
import { loadSkills, skillFolders } from '../../src/prompt-files/skills/catalog.js'
import { loadPlugin } from '../../src/plugins/load.js'
import type { LoadedPlugin, PluginSet } from '../../src/plugins/plugin.js'
import { pluginHookFiles, pluginMcpServers, promptRoots } from '../../src/plugins/roots.js'

const FIXTURES = resolve(import.meta.dirname, '../fixtures/plugins')

function box(): { cwd: string; home: string; root: string } {
  const root = mkdtempSync(join(tmpdir(), 'rein-plugins-'))
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd, { recursive: true })
  mkdirSync(home, { recursive: true })
  return { root, cwd, home }
}

function loaded(dir: string): LoadedPlugin {
  const plugin = loadPlugin(dir, { source: 'flag' })
  if ('error' in plugin) throw new Error(plugin.error)
  return plugin
}

function set(...plugins: LoadedPlugin[]): PluginSet {
  return { plugins, errors: [], untrusted: [] }
}

/** A plugin folder written from `files` (path → text). */
function writePlugin(dir: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  return dir
}

describe("Anthropic's published plugins load as they are", () => {
  const ralph = loaded(join(FIXTURES, 'ralph-loop'))
  const feature = loaded(join(FIXTURES, 'feature-dev'))

  it('every command of both loads, namespaced by its plugin; the one notice names the field Rein does not use', () => {
    const { cwd, home } = box()
    const catalog = loadCommands(commandFolders({ cwd, reinHome: home, userHome: home, roots: promptRoots(set(ralph, feature)) }), () => undefined)
    expect(catalog.problems).toEqual(['Rein ignored command file fields it does not know: hide-from-slash-command-tool (2 files).'])
    expect(catalog.commands.map((c) => shownName(catalog, c)).sort()).toEqual(['feature-dev:feature-dev', 'ralph-loop:cancel-ralph', 'ralph-loop:help', 'ralph-loop:ralph-loop'])
    // Reachable by the bare name too: no other plugin has a command of those names.
    expect(catalog.find('cancel-ralph')?.plugin).toBe('ralph-loop')
    expect(catalog.find('feature-dev:feature-dev')?.description).toMatch(/^Guided feature development/)
  })

  it("${CLAUDE_PLUGIN_ROOT} in a command's shell block and allowed-tools names the plugin's folder", () => {
    const { cwd, home } = box()
    const catalog = loadCommands(commandFolders({ cwd, reinHome: home, userHome: home, roots: promptRoots(set(ralph)) }), () => undefined)
    const command = catalog.find('ralph-loop:ralph-loop')!
    expect(command.body).toContain(`"${ralph.root}/scripts/setup-ralph-loop.sh" $ARGUMENTS`)
    expect(command.body).not.toContain('CLAUDE_PLUGIN_ROOT')
    expect(command.allowedTools).toEqual([`Bash(${ralph.root}/scripts/setup-ralph-loop.sh:*)`])
  })

  it("every agent of feature-dev loads beside the user's", () => {
    const { cwd, home } = box()
    const files = loadAgentFiles({ cwd, home, userHome: home, refuses: () => undefined, roots: promptRoots(set(ralph, feature)) })
    expect(files.problems).toEqual([])
    expect(files.agents.map((a) => a.name).sort()).toEqual(['code-architect', 'code-explorer', 'code-reviewer'])
    expect(files.agents.every((a) => a.source.startsWith(feature.root))).toBe(true)
  })

  it("ralph-loop's Stop hook loads as a user hook with the plugin's root in its command and environment", () => {
    const { cwd, home } = box()
    const catalog = loadHookCatalog({ cwd, home, userHome: home, extra: pluginHookFiles(set(ralph, feature)) })
    expect(catalog.problems).toEqual([])
    expect(catalog.untrusted).toEqual([])
    expect(catalog.active.map((d) => [d.event, d.command])).toEqual([['Stop', `bash "${ralph.root}/hooks/stop-hook.sh"`]])
    expect(catalog.active[0]!.file.variables).toEqual({ CLAUDE_PLUGIN_ROOT: ralph.root })
  })
})

describe('a plugin folder', () => {
  it("without a manifest loads by its folder's name when it holds a plugin's parts", () => {
    const { root } = box()
    const dir = writePlugin(join(root, 'bare'), { 'commands/go.md': 'Go.\n', 'skills/tidy/SKILL.md': '---\nname: tidy\ndescription: Tidies\n---\nTidy.\n' })
    const plugin = loaded(dir)
    expect(plugin.name).toBe('bare')
    const skills = loadSkills(skillFolders({ cwd: root, reinHome: root, userHome: root, roots: promptRoots(set(plugin)) }), root, () => undefined)
    expect(skills.skills.map((s) => s.name)).toEqual(['tidy'])
  })

  it('with neither a manifest nor any part is no plugin, in one sentence', () => {
    const { root } = box()
    const dir = writePlugin(join(root, 'empty'), { 'README.md': 'hi\n' })
    expect(loadPlugin(dir, { source: 'flag' })).toEqual({ error: `${dir} is not a plugin: it has no .claude-plugin/plugin.json and none of commands/, agents/, skills/, hooks/hooks.json or .mcp.json.` })
  })

  it('that is a file, or missing, is one sentence', () => {
    const { root } = box()
    writeFileSync(join(root, 'file'), 'x')
    expect(loadPlugin(join(root, 'file'), { source: 'flag' })).toEqual({ error: `The plugin path ${join(root, 'file')} is not a folder.` })
    expect(loadPlugin(join(root, 'gone'), { source: 'flag' })).toEqual({ error: `The plugin folder ${join(root, 'gone')} does not exist.` })
  })

  it('whose manifest is not JSON, has no name, or names it with / or .. is refused in one sentence', () => {
    const { root } = box()
    const cases: [string, RegExp][] = [
      ['{"name": ', /is not usable: it is not valid JSON/],
      ['{"version": "1.0.0"}', /is not usable: its field "name" is wrong/],
      ['{"name": "../escape"}', /its name "..\/escape" is not a plugin name/],
      ['{"name": "a/b"}', /its name "a\/b" is not a plugin name/],
    ]
    cases.forEach(([manifest, message], i) => {
      const dir = writePlugin(join(root, `p${i}`), { '.claude-plugin/plugin.json': manifest })
      const result = loadPlugin(dir, { source: 'flag' })
      expect('error' in result && result.error).toMatch(message)
    })
  })

  it('whose manifest is huge is refused without being read whole', () => {
    const { root } = box()
    const dir = writePlugin(join(root, 'huge'), { '.claude-plugin/plugin.json': JSON.stringify({ name: 'huge', description: 'x'.repeat(400_000) }) })
    const result = loadPlugin(dir, { source: 'flag' })
    expect('error' in result && result.error).toMatch(/was not read: it is \d+ bytes, more than the 262144 Rein reads/)
  })

  it('keeps unknown manifest fields and reads its version and description', () => {
    const { root } = box()
    const dir = writePlugin(join(root, 'x'), { '.claude-plugin/plugin.json': '{"name": "x", "version": "2.1.0", "description": "Does x", "keywords": ["a"], "future": {"y": 1}}' })
    expect(loaded(dir)).toMatchObject({ name: 'x', version: '2.1.0', description: 'Does x' })
  })

  it('whose manifest places a part outside the plugin is refused', () => {
    const { root } = box()
    const dir = writePlugin(join(root, 'out'), { '.claude-plugin/plugin.json': '{"name": "out", "commands": "../../etc"}' })
    const result = loadPlugin(dir, { source: 'flag' })
    expect('error' in result && result.error).toBe(`The plugin out names commands at ../../etc, outside its folder ${dir}.`)
  })

  it('whose agents folder is a link out of it is refused, naming the link', () => {
    const { root } = box()
    mkdirSync(join(root, 'elsewhere'))
    const dir = writePlugin(join(root, 'linked'), { '.claude-plugin/plugin.json': '{"name": "linked"}' })
    symlinkSync(join(root, 'elsewhere'), join(dir, 'agents'))
    const result = loadPlugin(dir, { source: 'flag' })
    expect('error' in result && result.error).toBe(`The plugin linked's agents folder ${join(dir, 'agents')} was not read: it is a link to ${join(root, 'elsewhere')}, outside ${dir}.`)
  })

  it('whose hook file is a link out of it is refused', () => {
    const { root } = box()
    writeFileSync(join(root, 'hooks.json'), '{"hooks": {}}')
    const dir = writePlugin(join(root, 'h'), { '.claude-plugin/plugin.json': '{"name": "h"}' })
    mkdirSync(join(dir, 'hooks'))
    symlinkSync(join(root, 'hooks.json'), join(dir, 'hooks', 'hooks.json'))
    const result = loadPlugin(dir, { source: 'flag' })
    expect('error' in result && result.error).toMatch(/^The plugin h's hook file .*hooks\.json was not read: it is a link to .*, outside /)
  })

  it('whose command file links out of it loses that command, in one sentence, and keeps the others', () => {
    const { root } = box()
    writeFileSync(join(root, 'secret.md'), 'Exfiltrate.\n')
    const dir = writePlugin(join(root, 'c'), { '.claude-plugin/plugin.json': '{"name": "c"}', 'commands/ok.md': 'Fine.\n' })
    symlinkSync(join(root, 'secret.md'), join(dir, 'commands', 'bad.md'))
    const catalog = loadCommands(commandFolders({ cwd: root, reinHome: join(root, 'none'), userHome: join(root, 'none'), roots: promptRoots(set(loaded(dir))) }), () => undefined)
    expect(catalog.commands.map((c) => c.name)).toEqual(['ok'])
    expect(catalog.problems).toEqual([`The command file ${join(dir, 'commands', 'bad.md')} was not read: it is a link to ${join(root, 'secret.md')}, outside ${join(dir, 'commands')}.`])
  })
})

describe('plugin commands by name', () => {
  it("answer to the bare name only when unambiguous, and never over the user's own command", () => {
    const { root, home } = box()
    const a = loaded(writePlugin(join(root, 'a'), { 'commands/deploy.md': 'A deploys.\n', 'commands/lint.md': 'A lints.\n', 'commands/mine.md': 'A mine.\n' }))
    const b = loaded(writePlugin(join(root, 'b'), { 'commands/deploy.md': 'B deploys.\n' }))
    writePlugin(join(home, 'commands'), { 'mine.md': "The user's.\n" })
    const catalog = loadCommands(commandFolders({ cwd: join(root, 'b'), reinHome: home, userHome: join(root, 'none'), roots: promptRoots(set(a, b)) }), () => undefined)
    expect(catalog.find('deploy')).toBeUndefined()
    expect(catalog.find('a:deploy')?.body).toBe('A deploys.\n')
    expect(catalog.find('b:deploy')?.body).toBe('B deploys.\n')
    expect(catalog.find('lint')?.body).toBe('A lints.\n')
    expect(catalog.find('mine')?.body).toBe("The user's.\n")
    expect(catalog.find('a:mine')?.body).toBe('A mine.\n')
  })
})

describe("a plugin's MCP servers", () => {
  it('come from .mcp.json in either shape and from the manifest, named plugin:<plugin>:<server>, with the root expanded', () => {
    const { root } = box()
    const one = loaded(writePlugin(join(root, 'one'), { '.mcp.json': '{"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/db", "args": ["--data", "${CLAUDE_PLUGIN_ROOT}/data"]}}}' }))
    const two = loaded(writePlugin(join(root, 'two'), { '.mcp.json': '{"web": {"type": "http", "url": "https://mcp.example.com/api"}}' }))
    const three = loaded(writePlugin(join(root, 'three'), { '.claude-plugin/plugin.json': '{"name": "three", "mcpServers": {"inline": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/s.mjs"]}}}' }))
    const { servers, problems } = pluginMcpServers(set(one, two, three), {})
    expect(problems).toEqual([])
    expect(servers).toEqual([
      { name: 'plugin:one:db', type: 'stdio', command: `${one.root}/bin/db`, args: ['--data', `${one.root}/data`], env: { CLAUDE_PLUGIN_ROOT: one.root }, origin: 'plugin one' },
      { name: 'plugin:two:web', type: 'http', url: 'https://mcp.example.com/api', headers: {}, origin: 'plugin two' },
      { name: 'plugin:three:inline', type: 'stdio', command: 'node', args: [`${three.root}/s.mjs`], env: { CLAUDE_PLUGIN_ROOT: three.root }, origin: 'plugin three' },
    ])
  })

  it('in a .mcp.json that is not JSON make the plugin fail to load in one sentence', () => {
    const { root } = box()
    const dir = writePlugin(join(root, 'm'), { '.mcp.json': '{' })
    const result = loadPlugin(dir, { source: 'flag' })
    expect('error' in result && result.error).toMatch(/^The plugin m's MCP file .*\.mcp\.json is not valid JSON/)
  })
})
