import { join, relative, resolve, sep } from 'node:path'
import { z } from 'zod'
import { readGated, realFolder } from '../fs/read-gate.js'
import { isPluginName, MANIFEST_BYTE_CAP } from './manifest.js'

export const MARKETPLACE_PATH = join('.claude-plugin', 'marketplace.json')

/**
 * `.claude-plugin/marketplace.json` as Claude Code reads it: `{name, owner, plugins: [{name, source, …}]}`, unknown
 * fields kept. A plugin's `source` is a path relative to the marketplace (below `metadata.pluginRoot` when set), or a
 * git source: `{source: "github", repo: "owner/name"}` or `{source: "url", url}`, each with an optional `ref`.
 */
const gitSource = z.union([
  z.looseObject({ source: z.literal('github'), repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/), ref: z.string().optional() }),
  z.looseObject({ source: z.literal('url'), url: z.string(), ref: z.string().optional() }),
])
const entrySchema = z.looseObject({
  name: z.string(),
  source: z.union([z.string(), gitSource]),
  description: z.string().optional(),
  version: z.string().optional(),
})
const marketplaceSchema = z.looseObject({
  name: z.string(),
  owner: z.unknown().optional(),
  metadata: z.looseObject({ pluginRoot: z.string().optional() }).optional(),
  plugins: z.array(z.unknown()),
})
export type MarketplaceEntry = z.infer<typeof entrySchema>

export interface Marketplace {
  name: string
  /** The marketplace's folder, real path. */
  dir: string
  /** Entries by name; an entry that does not parse is left out and named in `problems`. */
  entries: MarketplaceEntry[]
  problems: string[]
  /** `metadata.pluginRoot`: the folder (inside the marketplace) that bare entry sources are relative to. */
  pluginRoot?: string
}

/** The marketplace in folder `dir`, or one sentence saying why there is none. */
export function readMarketplace(dir: string): Marketplace | { error: string } {
  const root = realFolder({ dir: resolve(dir), base: resolve(dir) })
  const file = join(resolve(dir), MARKETPLACE_PATH)
  if (!root) return { error: `The marketplace folder ${resolve(dir)} does not exist.` }
  const read = readGated(join(root, MARKETPLACE_PATH), { folder: { dir: root, base: root }, refuses: () => undefined, maxBytes: MANIFEST_BYTE_CAP })
  if (read.kind === 'absent') return { error: `${resolve(dir)} is not a marketplace: it has no ${MARKETPLACE_PATH}.` }
  if (read.kind === 'skipped') return { error: `The marketplace file ${file} was not read: ${read.reason}.` }
  let raw: unknown
  try {
    raw = JSON.parse(read.bytes.toString('utf8'))
  } catch (error) {
    return { error: `The marketplace file ${file} is not valid JSON (${(error as Error).message.split('\n')[0]}).` }
  }
  const checked = marketplaceSchema.safeParse(raw)
  if (!checked.success) {
    const issue = checked.error.issues[0]!
    return { error: `The marketplace file ${file} is not usable: ${issue.path.length ? `"${issue.path.join('.')}"` : 'it'}: ${issue.message}.` }
  }
  if (!isPluginName(checked.data.name)) return { error: `The marketplace file ${file} names the marketplace ${JSON.stringify(checked.data.name)}; a marketplace name uses letters, digits, ., - and _ only.` }
  const entries: MarketplaceEntry[] = []
  const problems: string[] = []
  checked.data.plugins.forEach((item, i) => {
    const entry = entrySchema.safeParse(item)
    if (!entry.success) problems.push(`Entry ${i + 1} of ${file} is not a plugin entry (${entry.error.issues[0]!.message}).`)
    else if (!isPluginName(entry.data.name)) problems.push(`Entry ${i + 1} of ${file} names the plugin ${JSON.stringify(entry.data.name)}, which is not a plugin name (letters, digits, ., - and _, no / or ..).`)
    else entries.push(entry.data)
  })
  return { name: checked.data.name, dir: root, entries, problems, ...pluginRootOf(checked.data.metadata?.pluginRoot) }
}

function pluginRootOf(pluginRoot: string | undefined): { pluginRoot?: string } {
  return pluginRoot ? { pluginRoot } : {}
}

/** Where an entry's plugin is: a folder inside the marketplace, a git URL to clone, or why neither. */
export function entryLocation(market: Marketplace, entry: MarketplaceEntry): { dir: string } | { git: string; ref?: string } | { error: string } {
  const source = entry.source
  if (typeof source !== 'string') {
    const ref = source.ref ? { ref: source.ref } : {}
    return source.source === 'github' ? { git: `https://github.com/${source.repo}.git`, ...ref } : { git: source.url, ...ref }
  }
  const base = market.pluginRoot && !source.startsWith('./') ? resolve(market.dir, market.pluginRoot) : market.dir
  const dir = resolve(base, source)
  const rel = relative(market.dir, dir)
  if (rel.startsWith('..') || rel.startsWith(sep) || resolve(dir) === resolve('/')) {
    return { error: `The marketplace ${market.name} places the plugin ${entry.name} at ${source}, outside the marketplace folder ${market.dir}; Rein installs only what the marketplace holds.` }
  }
  const real = realFolder({ dir, base: dir })
  if (real === undefined) return { error: `The marketplace ${market.name} places the plugin ${entry.name} at ${source}, and there is no such folder.` }
  const realRel = relative(market.dir, real)
  if (realRel.startsWith('..') || realRel.startsWith(sep)) {
    return { error: `The marketplace ${market.name}'s folder for the plugin ${entry.name} is a link to ${real}, outside the marketplace folder ${market.dir}.` }
  }
  return { dir: real }
}
