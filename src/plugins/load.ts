import { existsSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'
import { gateDirectory, readGated, realFolder, type GateFolder } from '../fs/read-gate.js'
import { isPluginName, MANIFEST_BYTE_CAP, parseManifest, pathList, type PluginManifest } from './manifest.js'
import type { LoadedPlugin, PluginSource } from './plugin.js'

export const MANIFEST_PATH = join('.claude-plugin', 'plugin.json')
/** The parts a plugin may hold without a manifest: at least one must be there for a folder to be a plugin. */
const DEFAULT_PARTS = ['commands', 'agents', 'skills', join('hooks', 'hooks.json'), '.mcp.json']

export interface PluginOrigin {
  source: PluginSource
  key?: string
  /** The name when the manifest gives none or there is no manifest (a marketplace entry's, else the folder's). */
  name?: string
}

/**
 * One plugin folder: its manifest (optional, as in Claude Code: without one the name is the marketplace entry's or the
 * folder's) and its parts. Every file is read through the read gate with the plugin's root as the folder, so nothing
 * is read through a link that leaves the plugin; a part that leaves it, or a manifest that cannot be read, is the one
 * sentence in `error` (the plugin does not load: half a plugin could run its hooks without the commands they serve).
 */
export function loadPlugin(dir: string, origin: PluginOrigin): LoadedPlugin | { error: string } {
  const given = resolve(dir)
  const root = realFolder({ dir: given, base: given })
  const listed = gateDirectory(given, { dir: given, base: given })
  if (root === undefined || listed.kind === 'absent') return { error: existsSync(given) ? `The plugin path ${given} is not a folder.` : `The plugin folder ${given} does not exist.` }
  if (listed.kind === 'skipped') return { error: `The plugin folder ${given} was not read: ${listed.reason}.` }
  const gate: GateFolder = { dir: root, base: root }
  const read = (path: string) => readGated(path, { folder: gate, refuses: () => undefined, maxBytes: MANIFEST_BYTE_CAP })
  const manifestFile = read(join(root, MANIFEST_PATH))
  let manifest: PluginManifest | undefined
  if (manifestFile.kind === 'skipped') return { error: `The plugin manifest ${join(given, MANIFEST_PATH)} was not read: ${manifestFile.reason}.` }
  if (manifestFile.kind === 'read') {
    const parsed = parseManifest(manifestFile.bytes.toString('utf8'))
    if ('error' in parsed) return { error: `The plugin manifest ${join(given, MANIFEST_PATH)} is not usable: ${parsed.error}.` }
    manifest = parsed
  } else if (!DEFAULT_PARTS.some((part) => gateDirectory(join(root, part), gate).kind !== 'absent' || read(join(root, part)).kind !== 'absent')) {
    return { error: `${given} is not a plugin: it has no ${MANIFEST_PATH} and none of commands/, agents/, skills/, hooks/hooks.json or .mcp.json.` }
  }
  const name = manifest?.name ?? origin.name ?? root.split(sep).pop()!
  if (!isPluginName(name)) return { error: `The plugin folder ${given} has no usable name (${JSON.stringify(name)}); give its ${MANIFEST_PATH} a "name" of letters, digits, ., - and _.` }
  const label = `The plugin ${name}`

  const folders: Record<'commands' | 'agents' | 'skills', string[]> = { commands: [], agents: [], skills: [] }
  for (const part of ['commands', 'agents', 'skills'] as const) {
    for (const path of [`./${part}`, ...pathList(manifest?.[part])]) {
      const inside = within(root, path)
      if (!inside) return { error: `${label} names ${part} at ${path}, outside its folder ${root}.` }
      const checked = gateDirectory(inside, gate)
      if (checked.kind === 'skipped') return { error: `${label}'s ${part} folder ${inside} was not read: ${checked.reason}.` }
      // Rein loads folders: a manifest path naming one Markdown file is left out (docs/claude-code.md, "Plugins").
      if (checked.kind === 'ok' && !folders[part].includes(inside)) folders[part].push(inside)
    }
  }

  const hooks: LoadedPlugin['hooks'] = []
  const hookPaths = ['./hooks/hooks.json', ...(typeof manifest?.hooks === 'object' && !Array.isArray(manifest.hooks) ? [] : pathList(manifest?.hooks))]
  for (const path of hookPaths) {
    const inside = within(root, path)
    if (!inside) return { error: `${label} names hooks at ${path}, outside its folder ${root}.` }
    if (hooks.some((h) => h.path === inside)) continue
    const file = read(inside)
    if (file.kind === 'skipped') return { error: `${label}'s hook file ${inside} was not read: ${file.reason}.` }
    if (file.kind === 'read') hooks.push({ path: inside, text: file.bytes.toString('utf8') })
  }
  if (manifest?.hooks && typeof manifest.hooks === 'object' && !Array.isArray(manifest.hooks)) {
    hooks.push({ path: join(root, MANIFEST_PATH), text: JSON.stringify({ hooks: manifest.hooks }) })
  }

  const servers = mcpServers(root, manifest, read, label)
  if ('error' in servers) return servers
  return {
    name,
    root,
    ...(manifest?.version ? { version: manifest.version } : {}),
    ...(manifest?.description ? { description: manifest.description } : {}),
    source: origin.source,
    ...(origin.key ? { key: origin.key } : {}),
    commandDirs: folders.commands,
    agentDirs: folders.agents,
    skillDirs: folders.skills,
    hooks,
    mcpServers: servers.servers,
    mcpFile: servers.file,
  }
}

/** The plugin's MCP servers: `.mcp.json` (`{"mcpServers": {…}}` or the map itself), then the manifest's (a path or inline). */
function mcpServers(
  root: string,
  manifest: PluginManifest | undefined,
  read: (path: string) => ReturnType<typeof readGated>,
  label: string,
): { servers: Record<string, unknown>; file: string } | { error: string } {
  const servers: Record<string, unknown> = {}
  let file = join(root, '.mcp.json')
  const inline = manifest?.mcpServers
  const paths = ['./.mcp.json', ...(inline && typeof inline === 'object' && !Array.isArray(inline) ? [] : pathList(inline))]
  for (const path of paths) {
    const inside = within(root, path)
    if (!inside) return { error: `${label} names MCP servers at ${path}, outside its folder ${root}.` }
    const got = read(inside)
    if (got.kind === 'absent') continue
    if (got.kind === 'skipped') return { error: `${label}'s MCP file ${inside} was not read: ${got.reason}.` }
    let parsed: unknown
    try {
      parsed = JSON.parse(got.bytes.toString('utf8'))
    } catch (error) {
      return { error: `${label}'s MCP file ${inside} is not valid JSON (${(error as Error).message.split('\n')[0]}).` }
    }
    const map = isRecord(parsed) && isRecord(parsed.mcpServers) ? parsed.mcpServers : parsed
    if (!isRecord(map)) return { error: `${label}'s MCP file ${inside} must hold an object of servers.` }
    Object.assign(servers, map)
    file = inside
  }
  if (isRecord(inline)) {
    Object.assign(servers, inline)
    file = join(root, MANIFEST_PATH)
  }
  return { servers, file }
}

/** `path` (relative to `root`, `./` or not) as an absolute path inside `root`, or undefined when it leaves it. */
function within(root: string, path: string): string | undefined {
  const absolute = resolve(root, path)
  const rel = relative(root, absolute)
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel)) ? absolute : undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
