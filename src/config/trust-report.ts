import { realpathSync } from 'node:fs'
import { readConfigFile } from '../fs/read-gate.js'
import type { Grant, WorkspacePlaces } from '../trust/grant.js'
import { raisedLimits } from './limits.js'
import { NARROWING_MODES, settingsFiles, type Settings } from './settings.js'

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function realOrSelf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path // Not there (yet): it is compared and read by the path as given.
  }
}

/** Parsed JSON of a project settings file, or undefined when it is missing or malformed (loadSettings reports that). */
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

/** What an MCP server definition starts, as a grant's label says it: ` (runs cmd args)`, ` (connects to url)`. */
export function serverSummary(raw: unknown): string {
  if (!isRecord(raw)) return ''
  if (typeof raw.command === 'string') {
    const args = Array.isArray(raw.args) ? raw.args.filter((a) => typeof a === 'string') : []
    return ` (runs ${[raw.command, ...args].join(' ')})`
  }
  return typeof raw.url === 'string' ? ` (connects to ${raw.url})` : ''
}

/** The grants of one settings object (permissions, private network, passEnv, raised limits, MCP servers), as read from `file`. */
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
      grants.push({ kind: 'mcpServer', file, label: `MCP server "${name}"${serverSummary(raw)}`, value: { name, raw } })
    }
  }
  return grants
}

/**
 * The settings loader's report for trust: the grants of the workspace's committed and local `.rein` settings files.
 * When the workspace is the folder above REIN_HOME, its `.rein/settings.json` is the user's own file and needs no
 * trust (as in loadSettings).
 */
export function workspaceSettingsGrants(places: WorkspacePlaces): Grant[] {
  const [userFile, ...projectFiles] = settingsFiles(places.cwd, places.home).map(realOrSelf)
  return projectFiles.filter((f) => f !== userFile).flatMap((file) => settingsGrants(readJson(file, places.cwd), file))
}
