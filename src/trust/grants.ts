import { realpathSync } from 'node:fs'
import { readConfigFile } from '../fs/read-gate.js'
import { readHookFile } from '../hooks/catalog.js'
import { raisedLimits } from '../config/limits.js'
import { NARROWING_MODES, settingsFiles, type Settings } from '../config/settings.js'
import { hookFiles } from '../hooks/discovery.js'
import { parseHookFile } from '../hooks/config-file.js'
import { readProjectMcpFile } from '../mcp/load.js'
import { canonicalJson, sha256 } from './canonical.js'
import { skillAndCommandGrants } from '../prompt-files/trust-report.js'

/**
 * One thing a workspace defines that widens what runs or what is allowed. Until the user trusts the workspace every
 * grant is inert. `value` is what the hash covers; `label` is how the grant is shown to a person.
 */
export interface Grant {
  kind: 'allow' | 'defaultMode' | 'additionalDirectory' | 'privateNetwork' | 'passEnv' | 'limit' | 'hook' | 'mcpServer' | 'command' | 'skill'
  /** The file that defines it, absolute. */
  file: string
  label: string
  value: unknown
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function realOrSelf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path // Not there (yet): it is compared and read by the path as given.
  }
}

/** Parsed JSON of a file, or undefined when it is missing or malformed (its own loader reports that). */
function readJson(path: string, cwd: string): unknown {
  // Read as loadSettings reads a project file (inside the workspace, a regular file), so trust sees the same files.
  const read = readConfigFile(path, { dir: cwd, base: cwd })
  if (read.kind !== 'read') return undefined
  try {
    return JSON.parse(read.bytes.toString('utf8'))
  } catch {
    // Malformed: the settings loader reports it, with its line, and stops Rein.
    return undefined
  }
}

/** The grants of one settings object (permissions, private network, MCP servers), as read from `file`. */
export function settingsGrants(settings: unknown, file: string): Grant[] {
  if (!isRecord(settings)) return []
  const grants: Grant[] = []
  const permissions = isRecord(settings.permissions) ? settings.permissions : {}
  for (const rule of Array.isArray(permissions.allow) ? permissions.allow : []) {
    grants.push({ kind: 'allow', file, label: `allow rule ${JSON.stringify(rule)}`, value: rule })
  }
  if (permissions.defaultMode !== undefined && !NARROWING_MODES.includes(permissions.defaultMode)) {
    grants.push({ kind: 'defaultMode', file, label: `default mode ${JSON.stringify(permissions.defaultMode)}`, value: permissions.defaultMode })
  }
  for (const dir of Array.isArray(permissions.additionalDirectories) ? permissions.additionalDirectories : []) {
    grants.push({ kind: 'additionalDirectory', file, label: `additional directory ${JSON.stringify(dir)}`, value: dir })
  }
  for (const name of Array.isArray(settings.passEnv) ? settings.passEnv : []) {
    grants.push({ kind: 'passEnv', file, label: `passing ${JSON.stringify(name)} on to commands`, value: name })
  }
  if (isRecord(settings.webFetch) && settings.webFetch.allowPrivate === true) {
    grants.push({ kind: 'privateNetwork', file, label: 'web_fetch to private addresses', value: true })
  }
  // A limit set above its default (or a model's prices, or its output or window above the catalog's).
  for (const raised of raisedLimits(settings as Settings, {}, file)) {
    const kept = raised.kept === undefined ? '' : ` (default ${raised.kept})`
    grants.push({ kind: 'limit', file, label: `${raised.name} ${JSON.stringify(raised.value)}${kept}`, value: { name: raised.name, value: raised.value } })
  }
  if (isRecord(settings.mcpServers)) {
    for (const [name, raw] of Object.entries(settings.mcpServers)) {
      grants.push({ kind: 'mcpServer', file, label: `MCP server "${name}"${commandOf(raw)}`, value: { name, raw } })
    }
  }
  return grants
}

function commandOf(raw: unknown): string {
  if (!isRecord(raw)) return ''
  if (typeof raw.command === 'string') {
    const args = Array.isArray(raw.args) ? raw.args.filter((a) => typeof a === 'string') : []
    return ` (runs ${[raw.command, ...args].join(' ')})`
  }
  return typeof raw.url === 'string' ? ` (connects to ${raw.url})` : ''
}

/**
 * Everything the workspace at `cwd` defines that needs trust, in a fixed order: the `.rein` settings files, the
 * project hook files (`.claude`, `.codex`, `.rein` at the project root), then `.mcp.json`.
 */
export function workspaceGrants(options: { cwd: string; home: string; userHome: string }): Grant[] {
  const grants: Grant[] = []
  // The settings files after the user's own: the workspace's committed and local files. When the workspace is the
  // folder above REIN_HOME, its `.rein/settings.json` is the user's own file and needs no trust (as in loadSettings).
  const [userFile, ...projectFiles] = settingsFiles(options.cwd, options.home).map(realOrSelf)
  for (const file of projectFiles.filter((f) => f !== userFile)) grants.push(...settingsGrants(readJson(file, options.cwd), file))
  const { files, projectDir } = hookFiles(options)
  for (const file of files.filter((f) => f.scope === 'project')) {
    // Read as the hook loader reads it; a file it refuses or cannot find defines nothing (it reports the first).
    const read = readHookFile(file, projectDir)
    if (read.kind !== 'read') continue
    const text = read.bytes.toString('utf8')
    for (const definition of parseHookFile(text, file, 0, options.cwd).definitions) {
      const matcher = definition.matcher ? ` on ${definition.matcher}` : ''
      grants.push({
        kind: 'hook',
        file: file.path,
        label: `${definition.event} hook${matcher} running ${JSON.stringify(definition.command)}`,
        value: definition.hash,
      })
    }
  }
  const mcp = readProjectMcpFile(options.cwd)
  for (const [name, raw] of Object.entries(mcp.servers ?? {})) {
    grants.push({ kind: 'mcpServer', file: mcp.path, label: `MCP server "${name}"${commandOf(raw)}`, value: { name, raw } })
  }
  grants.push(...skillAndCommandGrants(options.cwd))
  return grants
}

/** The hash a trust record keeps: any change to any grant (or its file) changes it. */
export function grantsHash(grants: readonly Grant[]): string {
  return sha256(canonicalJson(grants.map(({ kind, file, value }) => ({ kind, file, value }))))
}
