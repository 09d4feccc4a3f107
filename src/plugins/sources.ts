import { join } from 'node:path'
import { readSettingsFile, settingsFiles } from '../config/settings.js'
import { loadPlugin, type PluginOrigin } from './load.js'
import { entryLocation, readMarketplace } from './marketplace.js'
import type { LoadedPlugin, PluginError, PluginSet } from './plugin.js'
import { own, readRegistry } from './registry.js'

export interface PluginSources {
  cwd: string
  /** `$REIN_HOME`: the user's settings and the plugin registry. */
  home: string
  /** `--plugin-dir`, absolute. */
  pluginDirs?: readonly string[]
  /** Whether the user trusts the workspace: only then do plugins its settings alone enable load. */
  workspaceTrusted: boolean
}

/**
 * Which plugins a session loads, in this order (a later plugin of a name already loaded is an error, not a second copy):
 * 1. each `--plugin-dir`;
 * 2. each installed plugin (`rein plugin install`), unless the last settings file that names it in `enabledPlugins`
 *    sets it `false`;
 * 3. each `enabledPlugins` key set `true` that is not installed, from the marketplace of its name (one added with
 *    `rein plugin marketplace add`, whose entry is a folder inside it).
 * What the user named (a flag, an install, their own settings file) is trusted. A plugin only the workspace's settings
 * (`.rein/settings.json`, `.rein/settings.local.json`) enable loads once the workspace is trusted; until then it is in
 * `untrusted` and the trust notice names it.
 */
export function resolvePlugins(options: PluginSources): PluginSet {
  const plugins: LoadedPlugin[] = []
  const errors: PluginError[] = []
  const untrusted: PluginSet['untrusted'] = []
  const add = (dir: string, origin: PluginOrigin, label: string, path?: string): void => {
    const loaded = loadPlugin(dir, origin)
    if ('error' in loaded) return void errors.push({ plugin: label, message: loaded.error, ...(path ? { path } : {}) })
    const twin = plugins.find((p) => p.name === loaded.name)
    if (twin) return void errors.push({ plugin: label, message: `The plugin ${loaded.name} at ${loaded.root} is not loaded: the plugin of that name at ${twin.root} already is.`, path: loaded.root })
    plugins.push(loaded)
  }
  ;(options.pluginDirs ?? []).forEach((dir, i) => add(dir, { source: 'flag' }, `inline[${i}]`, dir))

  const enabled = enabledPlugins(options.cwd, options.home)
  const registry = readRegistry(options.home)
  for (const [key, installed] of Object.entries(registry.plugins)) {
    if (enabled.get(key)?.value === false) continue
    add(installed.path, { source: 'installed', key, name: installed.name }, key, installed.path)
  }
  for (const [key, setting] of enabled) {
    if (!setting.value || own(registry.plugins, key)) continue
    if (!setting.user && !options.workspaceTrusted) {
      untrusted.push({ key, file: setting.file })
      errors.push({ plugin: key, message: `The plugin ${key} that ${setting.file} enables is not loaded: the workspace is not trusted; review it with \`rein trust\`.` })
      continue
    }
    const found = locate(key, options.home)
    if ('error' in found) errors.push({ plugin: key, message: found.error })
    else add(found.dir, { source: setting.user ? 'user-settings' : 'project-settings', key, name: key.split('@')[0] }, key, found.dir)
  }
  return { plugins, errors, untrusted }
}

/** An `enabledPlugins` key's value as the last settings file that names it sets it, and whether the user's own file enables it. */
interface EnabledSetting {
  value: boolean
  file: string
  /** The user's settings file sets it `true` (so it is the user's to trust, whatever a project adds). */
  user: boolean
}

/** `enabledPlugins` of the user, project and local settings files, later files winning; values other than booleans are ignored. */
export function enabledPlugins(cwd: string, home: string): Map<string, EnabledSetting> {
  const out = new Map<string, EnabledSetting>()
  const userFile = join(home, 'settings.json')
  for (const file of settingsFiles(cwd, home)) {
    let settings
    try {
      settings = readSettingsFile(file, file === userFile ? undefined : { dir: cwd, base: cwd })
    } catch {
      // A settings file Rein cannot read stops the session where settings are loaded; here it enables nothing.
      continue
    }
    const map = settings.enabledPlugins
    if (!map || typeof map !== 'object' || Array.isArray(map)) continue
    for (const [key, value] of Object.entries(map as Record<string, unknown>)) {
      if (typeof value !== 'boolean') continue
      const user = (out.get(key)?.user ?? false) || (file === userFile && value)
      out.set(key, { value, file, user })
    }
  }
  return out
}

/** The folder of `name@marketplace` inside an added marketplace, or why there is none. */
function locate(key: string, home: string): { dir: string } | { error: string } {
  const at = key.lastIndexOf('@')
  const name = key.slice(0, at)
  const marketName = key.slice(at + 1)
  if (at <= 0 || !marketName) return { error: `The enabledPlugins key ${JSON.stringify(key)} is not name@marketplace.` }
  const known = own(readRegistry(home).marketplaces, marketName)
  if (!known) return { error: `The plugin ${key} is enabled but neither installed nor in an added marketplace; run \`rein plugin install ${key}\` after \`rein plugin marketplace add <path or git URL>\`.` }
  const market = readMarketplace(known.path)
  if ('error' in market) return market
  const entry = market.entries.find((e) => e.name === name)
  if (!entry) return { error: `The marketplace ${marketName} has no plugin ${name}.` }
  const location = entryLocation(market, entry)
  if ('error' in location) return location
  if ('git' in location) return { error: `The plugin ${key} lives in its own git repository; install it with \`rein plugin install ${key}\`.` }
  return location
}
