import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { copyPlugin } from './copy.js'
import { isGitSource, shallowClone } from './git.js'
import { loadPlugin } from './load.js'
import { isPluginName } from './manifest.js'
import { entryLocation, readMarketplace, type Marketplace } from './marketplace.js'
import { own, pluginsHome, readRegistry, writeRegistry, type InstalledPlugin } from './registry.js'

/**
 * `rein plugin marketplace add|remove` and `rein plugin install|remove`, in Claude Code's shape: a marketplace is added
 * by path or git URL, then a plugin is installed as `name@marketplace` (or `name@<path or URL>`, which adds the
 * marketplace first). Every failure is an Error with one sentence; nothing half-written stays behind.
 */
export interface InstallOptions {
  home: string
  /** Relative paths are resolved from here. */
  cwd: string
  env?: NodeJS.ProcessEnv
  cloneTimeoutMs?: number
}

/** Adds (or refreshes) a marketplace: a local folder is used in place, a git repository is cloned under `$REIN_HOME/plugins/marketplaces`. */
export async function addMarketplace(source: string, options: InstallOptions): Promise<Marketplace> {
  if (!isGitSource(source)) {
    const dir = resolve(options.cwd, source)
    const market = readMarketplace(dir)
    if ('error' in market) throw new Error(market.error)
    record(options.home, market.name, { path: market.dir, source: dir, git: false })
    return market
  }
  const stage = staging(options.home)
  try {
    await shallowClone(source, join(stage, 'repo'), { timeoutMs: options.cloneTimeoutMs, env: options.env })
    const cloned = readMarketplace(join(stage, 'repo'))
    if ('error' in cloned) throw new Error(cloned.error.replace(join(stage, 'repo'), source))
    const dest = join(pluginsHome(options.home), 'marketplaces', cloned.name)
    rmSync(dest, { recursive: true, force: true })
    mkdirSync(dirname(dest), { recursive: true })
    renameSync(join(stage, 'repo'), dest)
    record(options.home, cloned.name, { path: dest, source, git: true })
    const market = readMarketplace(dest)
    if ('error' in market) throw new Error(market.error)
    return market
  } finally {
    rmSync(stage, { recursive: true, force: true })
  }
}

function record(home: string, name: string, entry: { path: string; source: string; git: boolean }): void {
  const registry = readRegistry(home)
  registry.marketplaces[name] = { ...entry, addedAt: new Date().toISOString() }
  writeRegistry(home, registry)
}

/** Installs `name@marketplace`: a copy of the plugin under `$REIN_HOME/plugins/installed/<marketplace>/<name>`. */
export async function installPlugin(spec: string, options: InstallOptions): Promise<InstalledPlugin & { key: string }> {
  const at = spec.indexOf('@')
  if (at <= 0 || at === spec.length - 1) throw new Error(`Name the plugin as name@marketplace (got ${JSON.stringify(spec)}); add a marketplace with \`rein plugin marketplace add <path or git URL>\`.`)
  const name = spec.slice(0, at)
  const where = spec.slice(at + 1)
  if (!isPluginName(name)) throw new Error(`${JSON.stringify(name)} is not a plugin name: letters, digits, ., - and _, no / or ..`)
  const known = own(readRegistry(options.home).marketplaces, where)
  const market = known ? readMarketplace(known.path) : await addMarketplace(where, options)
  if ('error' in market) throw new Error(`${market.error.replace(/\.$/, '')}; add it again with \`rein plugin marketplace add ${known!.source}\`.`)
  const entry = market.entries.find((e) => e.name === name)
  if (!entry) {
    const names = market.entries.map((e) => e.name)
    throw new Error(`The marketplace ${market.name} has no plugin ${name}${names.length ? `; it offers ${names.join(', ')}` : ''}.`)
  }
  const location = entryLocation(market, entry)
  if ('error' in location) throw new Error(location.error)
  const key = `${name}@${market.name}`
  const dest = join(pluginsHome(options.home), 'installed', market.name, name)
  const stage = staging(options.home)
  try {
    let from: string
    if ('git' in location) {
      from = join(stage, 'clone')
      await shallowClone(location.git, from, { ref: location.ref, timeoutMs: options.cloneTimeoutMs, env: options.env })
    } else from = location.dir
    copyPlugin(from, join(stage, 'plugin'))
    const loaded = loadPlugin(join(stage, 'plugin'), { source: 'installed', key, name })
    if ('error' in loaded) throw new Error(loaded.error.replaceAll(join(stage, 'plugin'), from))
    if (loaded.name !== name) throw new Error(`The marketplace ${market.name} lists the plugin ${name}, but its manifest names it ${loaded.name}; Rein does not install it.`)
    rmSync(dest, { recursive: true, force: true })
    mkdirSync(dirname(dest), { recursive: true })
    renameSync(join(stage, 'plugin'), dest)
  } finally {
    rmSync(stage, { recursive: true, force: true })
  }
  const registry = readRegistry(options.home)
  const installed: InstalledPlugin = { name, marketplace: market.name, path: dest, ...(entry.version ? { version: entry.version } : {}), installedAt: new Date().toISOString() }
  registry.plugins[key] = installed
  writeRegistry(options.home, registry)
  return { ...installed, key }
}

/** Removes an installed plugin by `name` (when one marketplace's) or `name@marketplace`; returns its key. */
export function removePlugin(spec: string, options: Pick<InstallOptions, 'home'>): string {
  const registry = readRegistry(options.home)
  const keys = spec.includes('@') ? (own(registry.plugins, spec) ? [spec] : []) : Object.keys(registry.plugins).filter((k) => registry.plugins[k]!.name === spec)
  if (keys.length === 0) throw new Error(`No plugin ${spec} is installed; \`rein plugin list\` shows those that are.`)
  if (keys.length > 1) throw new Error(`More than one plugin is named ${spec} (${keys.join(', ')}); name one as name@marketplace.`)
  const key = keys[0]!
  const path = registry.plugins[key]!.path
  // Only what Rein installed is removed: the path must be Rein's own copy.
  if (resolve(path).startsWith(join(pluginsHome(options.home), 'installed') + '/')) rmSync(path, { recursive: true, force: true })
  delete registry.plugins[key]
  writeRegistry(options.home, registry)
  return key
}

/** Removes a marketplace (its clone, when Rein cloned it); installed plugins from it stay installed. */
export function removeMarketplace(name: string, options: Pick<InstallOptions, 'home'>): void {
  const registry = readRegistry(options.home)
  const market = own(registry.marketplaces, name)
  if (!market) throw new Error(`No marketplace ${name} was added; \`rein plugin marketplace list\` shows those that were.`)
  if (market.git && resolve(market.path).startsWith(join(pluginsHome(options.home), 'marketplaces') + '/')) rmSync(market.path, { recursive: true, force: true })
  delete registry.marketplaces[name]
  writeRegistry(options.home, registry)
}

/** A private folder under `$REIN_HOME/plugins` for one operation (the same file system, so the final move is a rename). */
function staging(home: string): string {
  const base = join(pluginsHome(home), '.staging')
  mkdirSync(base, { recursive: true })
  return mkdtempSync(join(base, 'op-'))
}
