import { z } from 'zod'

/**
 * `.claude-plugin/plugin.json` as Claude Code reads it: every field optional but `name`, unknown fields kept (a
 * manifest written for a newer Claude Code still loads). Component paths are relative to the plugin's root and add to
 * the default folders (`commands/`, `agents/`, `skills/`); `hooks` and `mcpServers` are a path to a JSON file or the
 * configuration inline.
 */
const paths = z.union([z.string(), z.array(z.string())])
const author = z.union([z.string(), z.looseObject({ name: z.string().optional(), email: z.string().optional(), url: z.string().optional() })])
const manifestSchema = z.looseObject({
  name: z.string(),
  version: z.string().optional(),
  description: z.string().optional(),
  author: author.optional(),
  commands: paths.optional(),
  agents: paths.optional(),
  skills: paths.optional(),
  hooks: z.union([paths, z.record(z.string(), z.unknown())]).optional(),
  mcpServers: z.union([paths, z.record(z.string(), z.unknown())]).optional(),
})
export type PluginManifest = z.infer<typeof manifestSchema>

/** A plugin's name: what its commands are namespaced by and `enabledPlugins` keys start with. No `/`, no `..`. */
const NAME = /^[A-Za-z0-9][\w.-]{0,63}$/

/** Whether `name` may name a plugin (or a marketplace): letters, digits, `.`, `-`, `_`, never a path. */
export function isPluginName(name: string): boolean {
  return NAME.test(name) && !name.includes('..')
}

/** The most bytes Rein reads of a plugin or marketplace manifest: far beyond any real one. */
export const MANIFEST_BYTE_CAP = 256 * 1024

/** The manifest in `text`, or the clause that says why it is none (`it is not valid JSON (…)`). */
export function parseManifest(text: string): PluginManifest | { error: string } {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    return { error: `it is not valid JSON (${(error as Error).message.split('\n')[0]})` }
  }
  const checked = manifestSchema.safeParse(raw)
  if (!checked.success) {
    const issue = checked.error.issues[0]!
    return { error: `${issue.path.length ? `its field "${issue.path.join('.')}"` : 'it'} is wrong: ${issue.message}` }
  }
  if (!isPluginName(checked.data.name)) return { error: `its name ${JSON.stringify(checked.data.name)} is not a plugin name (letters, digits, ., - and _, no / or ..)` }
  return checked.data
}

/** A manifest field of paths as a list. */
export function pathList(value: string | string[] | Record<string, unknown> | undefined): string[] {
  if (value === undefined || (typeof value === 'object' && !Array.isArray(value))) return []
  return typeof value === 'string' ? [value] : value
}
