import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { PRIVATE_FILE, writeFileAtomicSync } from '../fs/atomic-write.js'

/**
 * What `rein plugin` installed, in `$REIN_HOME/plugins/registry.json`: the marketplaces added (a local folder is used
 * where it is; a git one is cloned under `marketplaces/<name>`) and the plugins installed (each a copy under
 * `installed/<marketplace>/<name>`, keyed `name@marketplace` as `enabledPlugins` names them). Only Rein writes it; a
 * damaged file reads as empty, so Rein still starts, and the next install rewrites it.
 */
const registrySchema = z.object({
  version: z.literal(1),
  marketplaces: z.record(z.string(), z.object({ path: z.string(), source: z.string(), git: z.boolean(), addedAt: z.string() })),
  plugins: z.record(
    z.string(),
    z.object({ name: z.string(), marketplace: z.string(), path: z.string(), version: z.string().optional(), installedAt: z.string() }),
  ),
})
export type Registry = z.infer<typeof registrySchema>
export type InstalledPlugin = Registry['plugins'][string]

/** `record[key]` when it is the record's own entry: a name such as `constructor` never reaches `Object.prototype`. */
export function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined
}

export function pluginsHome(home: string): string {
  return join(home, 'plugins')
}

function registryFile(home: string): string {
  return join(pluginsHome(home), 'registry.json')
}

export function readRegistry(home: string): Registry {
  let text: string
  try {
    text = readFileSync(registryFile(home), 'utf8')
  } catch {
    // Nothing installed yet.
    return { version: 1, marketplaces: {}, plugins: {} }
  }
  try {
    const checked = registrySchema.safeParse(JSON.parse(text))
    if (checked.success) return checked.data
  } catch {
    // Damaged: read as empty (see the module comment).
  }
  return { version: 1, marketplaces: {}, plugins: {} }
}

export function writeRegistry(home: string, registry: Registry): void {
  writeFileAtomicSync(registryFile(home), JSON.stringify(registry, null, 2) + '\n', PRIVATE_FILE)
}
