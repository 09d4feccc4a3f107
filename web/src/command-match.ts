import type { CatalogCommand } from './api.js'

/** The catalog's commands whose name, an alias or help line matches `query` (a leading `/` ignored), names first. */
export function matchingCommands<T extends Pick<CatalogCommand, 'name' | 'aliases' | 'help'>>(commands: readonly T[], query: string): T[] {
  const q = query.replace(/^\//, '').trim().toLowerCase()
  if (!q) return [...commands]
  const named = commands.filter((c) => c.name.startsWith(q) || c.aliases.some((a) => a.startsWith(q)))
  const helped = commands.filter((c) => !named.includes(c) && `${c.name} ${c.help}`.toLowerCase().includes(q))
  return [...named, ...helped]
}
