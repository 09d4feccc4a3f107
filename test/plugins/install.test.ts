import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { COPY_LIMITS } from '../../src/plugins/copy.js'
import { addMarketplace, installPlugin, removeMarketplace, removePlugin } from '../../src/plugins/install.js'
import { readRegistry } from '../../src/plugins/registry.js'
import { resolvePlugins } from '../../src/plugins/sources.js'
import { pluginGrants } from '../../src/plugins/trust-report.js'

const FIXTURES = resolve(import.meta.dirname, '../fixtures/plugins')

function box(): { root: string; cwd: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'rein-plugin-install-'))
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd, { recursive: true })
  mkdirSync(home, { recursive: true })
  return { root, cwd, home }
}

/** A marketplace folder holding copies of the published fixtures under plugins/, and `entries` as its plugin list. */
function marketplace(dir: string, entries: unknown[] = [
  { name: 'ralph-loop', source: './plugins/ralph-loop', description: 'Loops', version: '1.0.0' },
  { name: 'feature-dev', source: './plugins/feature-dev' },
]): string {
  mkdirSync(join(dir, '.claude-plugin'), { recursive: true })
  cpSync(join(FIXTURES, 'ralph-loop'), join(dir, 'plugins', 'ralph-loop'), { recursive: true })
  cpSync(join(FIXTURES, 'feature-dev'), join(dir, 'plugins', 'feature-dev'), { recursive: true })
  writeFileSync(join(dir, '.claude-plugin', 'marketplace.json'), JSON.stringify({ name: 'team', owner: { name: 'Team' }, plugins: entries }))
  return dir
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], { cwd, stdio: 'pipe' })

/** A bare git repository (reached as a file:// URL) holding `dir`'s files in one commit. */
function bareRepo(dir: string, at: string): string {
  git(dir, 'init', '-q')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'x')
  git(dir, 'clone', '-q', '--bare', dir, at)
  return pathToFileURL(at).href
}

describe('rein plugin install from a local marketplace', () => {
  it('installs a copy, lists it as loaded, and removes it', async () => {
    const { root, cwd, home } = box()
    const market = marketplace(join(root, 'market'))
    const added = await addMarketplace(market, { home, cwd })
    expect(added.entries.map((e) => e.name)).toEqual(['ralph-loop', 'feature-dev'])
    const installed = await installPlugin('ralph-loop@team', { home, cwd })
    expect(installed).toMatchObject({ key: 'ralph-loop@team', name: 'ralph-loop', marketplace: 'team', version: '1.0.0', path: join(home, 'plugins', 'installed', 'team', 'ralph-loop') })
    // A copy, not a link: the installed plugin does not follow its source.
    expect(lstatSync(installed.path).isSymbolicLink()).toBe(false)
    expect(readFileSync(join(installed.path, 'hooks', 'stop-hook.sh'), 'utf8')).toBe(readFileSync(join(FIXTURES, 'ralph-loop', 'hooks', 'stop-hook.sh'), 'utf8'))
    const set = resolvePlugins({ cwd, home, workspaceTrusted: false })
    expect(set.errors).toEqual([])
    expect(set.plugins.map((p) => [p.key, p.source, p.root])).toEqual([['ralph-loop@team', 'installed', installed.path]])
    expect(removePlugin('ralph-loop', { home })).toBe('ralph-loop@team')
    expect(existsSync(installed.path)).toBe(false)
    expect(resolvePlugins({ cwd, home, workspaceTrusted: false }).plugins).toEqual([])
  })

  it('name@<marketplace folder> adds the marketplace and installs in one step', async () => {
    const { cwd, home } = box()
    marketplace(join(cwd, 'market'))
    const installed = await installPlugin('feature-dev@market', { home, cwd })
    expect(installed.key).toBe('feature-dev@team')
    expect(Object.keys(readRegistry(home).marketplaces)).toEqual(['team'])
    expect(readRegistry(home).marketplaces.team!.path).toBe(join(cwd, 'market'))
  })

  it('an installed plugin that a settings file sets false does not load', async () => {
    const { root, cwd, home } = box()
    await installPlugin('ralph-loop@' + marketplace(join(root, 'market')), { home, cwd })
    mkdirSync(join(cwd, '.rein'))
    writeFileSync(join(cwd, '.rein', 'settings.json'), '{"enabledPlugins": {"ralph-loop@team": false}}')
    expect(resolvePlugins({ cwd, home, workspaceTrusted: false }).plugins).toEqual([])
  })
})

describe('rein plugin install from git', () => {
  it('clones a marketplace from a file:// URL, and a plugin whose entry is its own git repository', async () => {
    const { root, cwd, home } = box()
    const solo = join(root, 'solo')
    cpSync(join(FIXTURES, 'feature-dev'), solo, { recursive: true })
    const soloUrl = bareRepo(solo, join(root, 'solo.git'))
    const market = marketplace(join(root, 'market-src'), [
      { name: 'ralph-loop', source: './plugins/ralph-loop' },
      { name: 'feature-dev', source: { source: 'url', url: soloUrl } },
    ])
    const url = bareRepo(market, join(root, 'market.git'))
    const added = await addMarketplace(url, { home, cwd })
    expect(added.dir).toBe(join(home, 'plugins', 'marketplaces', 'team'))
    expect(existsSync(join(added.dir, '.git'))).toBe(true)
    const ralph = await installPlugin('ralph-loop@team', { home, cwd })
    const feature = await installPlugin('feature-dev@team', { home, cwd })
    // Git metadata is not part of an installed copy.
    expect(existsSync(join(ralph.path, '.git'))).toBe(false)
    expect(existsSync(join(feature.path, '.git'))).toBe(false)
    expect(existsSync(join(feature.path, 'agents', 'code-architect.md'))).toBe(true)
    expect(resolvePlugins({ cwd, home, workspaceTrusted: false }).plugins.map((p) => p.name).sort()).toEqual(['feature-dev', 'ralph-loop'])
    removeMarketplace('team', { home })
    expect(existsSync(added.dir)).toBe(false)
  })

  it('a git entry naming a remote helper (ext::) or an option is refused before git runs', async () => {
    const { root, cwd, home } = box()
    const market = marketplace(join(root, 'market'), [
      { name: 'ext', source: { source: 'url', url: `ext::sh -c touch% ${join(root, 'pwned')}` } },
      { name: 'opt', source: { source: 'url', url: '--upload-pack=touch /tmp/x' } },
    ])
    await expect(installPlugin(`ext@${market}`, { home, cwd })).rejects.toThrow(/^ext::sh -c touch% .* is not a git URL Rein clones: use https:\/\/, ssh:\/\/, git:\/\/, file:\/\/ or git@host:path\.$/)
    await expect(installPlugin('opt@team', { home, cwd })).rejects.toThrow('--upload-pack=touch /tmp/x is not a git URL Rein clones')
    expect(existsSync(join(root, 'pwned'))).toBe(false)
  })

  it('a repository that cannot be cloned is one sentence naming the URL, and nothing is left behind', async () => {
    const { root, cwd, home } = box()
    const url = pathToFileURL(join(root, 'missing.git')).href
    await expect(addMarketplace(url, { home, cwd })).rejects.toThrow(new RegExp(`^Cloning ${url} failed: .+\\.$`))
    expect(readRegistry(home).marketplaces).toEqual({})
    expect(existsSync(join(home, 'plugins', 'marketplaces'))).toBe(false)
  })
})

describe('hostile marketplaces and plugins', () => {
  it("an entry whose source leaves the marketplace's folder is refused", async () => {
    const { root, cwd, home } = box()
    mkdirSync(join(root, 'outside', '.claude-plugin'), { recursive: true })
    writeFileSync(join(root, 'outside', '.claude-plugin', 'plugin.json'), '{"name": "evil"}')
    const market = marketplace(join(root, 'market'), [{ name: 'evil', source: '../outside' }])
    await expect(installPlugin(`evil@${market}`, { home, cwd })).rejects.toThrow(
      `The marketplace team places the plugin evil at ../outside, outside the marketplace folder ${market}; Rein installs only what the marketplace holds.`,
    )
    expect(readRegistry(home).plugins).toEqual({})
  })

  it("an entry whose folder is a link out of the marketplace is refused", async () => {
    const { root, cwd, home } = box()
    mkdirSync(join(root, 'outside'))
    const market = marketplace(join(root, 'market'), [{ name: 'evil', source: './plugins/evil' }])
    symlinkSync(join(root, 'outside'), join(market, 'plugins', 'evil'))
    await expect(installPlugin(`evil@${market}`, { home, cwd })).rejects.toThrow(`The marketplace team's folder for the plugin evil is a link to ${join(root, 'outside')}, outside the marketplace folder ${market}.`)
  })

  it('a plugin name with / or .. is refused, in the request and in a marketplace entry', async () => {
    const { root, cwd, home } = box()
    const market = marketplace(join(root, 'market'), [{ name: '../../x', source: './plugins/ralph-loop' }, { name: 'ralph-loop', source: './plugins/ralph-loop' }])
    await expect(installPlugin(`../x@${market}`, { home, cwd })).rejects.toThrow('"../x" is not a plugin name: letters, digits, ., - and _, no / or ..')
    await expect(installPlugin(`a/b@${market}`, { home, cwd })).rejects.toThrow('"a/b" is not a plugin name')
    const added = await addMarketplace(market, { home, cwd })
    expect(added.problems).toEqual([`Entry 1 of ${join(market, '.claude-plugin', 'marketplace.json')} names the plugin "../../x", which is not a plugin name (letters, digits, ., - and _, no / or ..).`])
    expect(added.entries.map((e) => e.name)).toEqual(['ralph-loop'])
  })

  it('a plugin with a file linking outside it is not installed', async () => {
    const { root, cwd, home } = box()
    writeFileSync(join(root, 'secret'), 'token')
    const market = marketplace(join(root, 'market'))
    symlinkSync(join(root, 'secret'), join(market, 'plugins', 'ralph-loop', 'commands', 'steal.md'))
    await expect(installPlugin(`ralph-loop@${market}`, { home, cwd })).rejects.toThrow(`The plugin's file commands/steal.md is a link to ${join(root, 'secret')}, outside the plugin; Rein does not install it.`)
    expect(existsSync(join(home, 'plugins', 'installed', 'team', 'ralph-loop'))).toBe(false)
    expect(readRegistry(home).plugins).toEqual({})
  })

  it('a plugin holding a pipe, an absolute link, or more files than the limit is not installed', async () => {
    const { root, cwd, home } = box()
    const market = marketplace(join(root, 'market'))
    const plugin = join(market, 'plugins', 'ralph-loop')
    execFileSync('mkfifo', [join(plugin, 'pipe')])
    await expect(installPlugin(`ralph-loop@${market}`, { home, cwd })).rejects.toThrow("The plugin's file pipe is not a regular file (a pipe, socket or device); Rein does not install it.")
    rmSync(join(plugin, 'pipe'))
    symlinkSync(join(plugin, 'LICENSE'), join(plugin, 'LICENSE.link'))
    await expect(installPlugin('ralph-loop@team', { home, cwd })).rejects.toThrow("The plugin's file LICENSE.link is an absolute link; Rein installs only relative links inside the plugin.")
    rmSync(join(plugin, 'LICENSE.link'))
    const files = COPY_LIMITS.files
    COPY_LIMITS.files = 3
    try {
      await expect(installPlugin('ralph-loop@team', { home, cwd })).rejects.toThrow(`The plugin at ${plugin} holds more than 3 files or 50 MiB; Rein does not install it.`)
    } finally {
      COPY_LIMITS.files = files
    }
    expect(readRegistry(home).plugins).toEqual({})
    expect((await installPlugin('ralph-loop@team', { home, cwd })).key).toBe('ralph-loop@team')
  })

  it('a folder that is no plugin (no plugin.json, no parts) is not installed', async () => {
    const { root, cwd, home } = box()
    const market = marketplace(join(root, 'market'), [{ name: 'empty', source: './plugins/empty' }])
    mkdirSync(join(market, 'plugins', 'empty'))
    writeFileSync(join(market, 'plugins', 'empty', 'README.md'), 'nothing')
    await expect(installPlugin(`empty@${market}`, { home, cwd })).rejects.toThrow(`${join(market, 'plugins', 'empty')} is not a plugin: it has no .claude-plugin/plugin.json`)
  })

  it('a huge or malformed marketplace file is refused in one sentence', async () => {
    const { root, cwd, home } = box()
    mkdirSync(join(root, 'm1', '.claude-plugin'), { recursive: true })
    writeFileSync(join(root, 'm1', '.claude-plugin', 'marketplace.json'), JSON.stringify({ name: 'm1', plugins: [], pad: 'x'.repeat(300_000) }))
    await expect(addMarketplace(join(root, 'm1'), { home, cwd })).rejects.toThrow(/was not read: it is \d+ bytes, more than the 262144 Rein reads/)
    mkdirSync(join(root, 'm2', '.claude-plugin'), { recursive: true })
    writeFileSync(join(root, 'm2', '.claude-plugin', 'marketplace.json'), '{"name": "m2"}')
    await expect(addMarketplace(join(root, 'm2'), { home, cwd })).rejects.toThrow(/is not usable: "plugins": /)
    await expect(addMarketplace(join(root, 'nowhere'), { home, cwd })).rejects.toThrow(`The marketplace folder ${join(root, 'nowhere')} does not exist.`)
  })

  it('a plugin the marketplace does not list, or one not installed, is one sentence', async () => {
    const { root, cwd, home } = box()
    const market = marketplace(join(root, 'market'))
    await expect(installPlugin(`nope@${market}`, { home, cwd })).rejects.toThrow('The marketplace team has no plugin nope; it offers ralph-loop, feature-dev.')
    expect(() => removePlugin('nope', { home })).toThrow('No plugin nope is installed; `rein plugin list` shows those that are.')
    await expect(installPlugin('no-at-sign', { home, cwd })).rejects.toThrow(/^Name the plugin as name@marketplace/)
  })
})

describe('enabledPlugins in settings', () => {
  async function withMarket(): Promise<{ root: string; cwd: string; home: string }> {
    const b = box()
    await addMarketplace(marketplace(join(b.root, 'market')), { home: b.home, cwd: b.cwd })
    return b
  }

  it("the user's settings load a plugin of an added marketplace, trusted", async () => {
    const { cwd, home } = await withMarket()
    writeFileSync(join(home, 'settings.json'), '{"enabledPlugins": {"feature-dev@team": true}}')
    const set = resolvePlugins({ cwd, home, workspaceTrusted: false })
    expect(set.plugins.map((p) => [p.key, p.source])).toEqual([['feature-dev@team', 'user-settings']])
    expect(set.untrusted).toEqual([])
  })

  it("a project's settings load one only once the workspace is trusted, and the trust report lists what it runs", async () => {
    const { cwd, home } = await withMarket()
    mkdirSync(join(cwd, '.rein'))
    writeFileSync(join(cwd, '.rein', 'settings.json'), '{"enabledPlugins": {"ralph-loop@team": true}}')
    const untrusted = resolvePlugins({ cwd, home, workspaceTrusted: false })
    expect(untrusted.plugins).toEqual([])
    expect(untrusted.untrusted).toEqual([{ key: 'ralph-loop@team', file: join(cwd, '.rein', 'settings.json') }])
    expect(untrusted.errors.map((e) => e.message)).toEqual([`The plugin ralph-loop@team that ${join(cwd, '.rein', 'settings.json')} enables is not loaded: the workspace is not trusted; review it with \`rein trust\`.`])
    expect(resolvePlugins({ cwd, home, workspaceTrusted: true }).plugins.map((p) => [p.key, p.source])).toEqual([['ralph-loop@team', 'project-settings']])
    const grants = pluginGrants({ cwd, home, userHome: home })
    expect(grants.map((g) => [g.kind, g.label])).toEqual([['plugin', 'plugin ralph-loop@team with hooks (Stop), commands running shell (/ralph-loop:ralph-loop)']])
  })

  it("keys naming Object's own properties (constructor, __proto__) are plugins like any other, never a crash", () => {
    const { cwd, home } = box()
    writeFileSync(join(home, 'settings.json'), '{"enabledPlugins": {"x@constructor": true, "constructor": true, "__proto__@toString": true}}')
    const set = resolvePlugins({ cwd, home, workspaceTrusted: false })
    expect(set.plugins).toEqual([])
    expect(set.errors.map((e) => e.plugin)).toEqual(['x@constructor', 'constructor', '__proto__@toString'])
    expect(() => removePlugin('constructor@x', { home })).toThrow('No plugin constructor@x is installed')
  })

  it('a key that names no known marketplace or plugin is one sentence in the errors', () => {
    const { cwd, home } = box()
    writeFileSync(join(home, 'settings.json'), '{"enabledPlugins": {"ghost@nowhere": true, "off@nowhere": false}}')
    const set = resolvePlugins({ cwd, home, workspaceTrusted: false })
    expect(set.errors).toEqual([
      { plugin: 'ghost@nowhere', message: 'The plugin ghost@nowhere is enabled but neither installed nor in an added marketplace; run `rein plugin install ghost@nowhere` after `rein plugin marketplace add <path or git URL>`.' },
    ])
  })

  it('two plugins of one name: the second is not loaded, in one sentence', () => {
    const { cwd, home } = box()
    const set = resolvePlugins({ cwd, home, workspaceTrusted: false, pluginDirs: [join(FIXTURES, 'ralph-loop'), join(FIXTURES, 'ralph-loop')] })
    expect(set.plugins).toHaveLength(1)
    expect(set.errors).toEqual([{ plugin: 'inline[1]', message: expect.stringMatching(/^The plugin ralph-loop at .* is not loaded: the plugin of that name at .* already is\.$/), path: join(FIXTURES, 'ralph-loop') }])
  })
})
