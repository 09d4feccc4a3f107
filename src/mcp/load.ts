import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type McpServerConfig, parseServer, parseServerMap } from './config.js'
import { definitionHash, storeTrust, trustedServers } from './trust.js'

export interface LoadMcpConfigOptions {
  /** The project directory; its `.mcp.json` is read. */
  cwd: string
  /** Rein's merged settings; `mcpServers` has the `.mcp.json` shape. */
  settings: { mcpServers?: unknown }
  /** REIN_HOME, where project trust is stored. */
  home: string
  /** Use the project's `.mcp.json` servers without checking trust (`--trust-project-mcp`). */
  trustProject?: boolean
  /** For `${VAR}` expansion; defaults to `process.env`. */
  env?: Record<string, string | undefined>
}

/** What `.mcp.json` holds, or why it could not be read. `servers` is absent when the file does not exist. */
export interface ProjectMcpFile {
  path: string
  servers?: Record<string, unknown>
  problem?: string
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Where a 0-based character offset falls, as a 1-based line number. */
function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length
}

export function readProjectMcpFile(cwd: string): ProjectMcpFile {
  const path = join(cwd, '.mcp.json')
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path }
    return { path, problem: `Could not read ${path} (${(error as Error).message}); check its permissions.` }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    const message = (error as Error).message
    const position = /position (\d+)/.exec(message)
    const line = /line (\d+)/.exec(message)?.[1] ?? (position ? String(lineOf(text, Number(position[1]))) : undefined)
    return { path, problem: `${path}${line ? ` line ${line}` : ''} is not valid JSON (${message}); fix the file.` }
  }
  const servers = (parsed as { mcpServers?: unknown } | null)?.mcpServers
  if (servers === undefined) return { path, servers: {} }
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    return { path, problem: `"mcpServers" in ${path} is not an object; write {"mcpServers": {"name": {"command": …}}}.` }
  }
  return { path, servers: servers as Record<string, unknown> }
}

/**
 * The names of servers that `<cwd>/.rein/settings.json` defines. That file is committed with the project, so its
 * servers need trust just like `.mcp.json`'s; a malformed file is the settings loader's to report.
 */
function projectSettingsServerNames(cwd: string): Set<string> {
  try {
    const parsed = JSON.parse(readFileSync(join(cwd, '.rein', 'settings.json'), 'utf8')) as { mcpServers?: unknown } | null
    const servers = parsed?.mcpServers
    return new Set(typeof servers === 'object' && servers !== null && !Array.isArray(servers) ? Object.keys(servers) : [])
  } catch {
    // No project settings file, or one the settings loader rejects with its own message: no project servers here.
    return new Set()
  }
}

/** The trust key of a server that comes from project settings rather than `.mcp.json`. */
const settingsKey = (name: string) => `settings:${name}`

/**
 * The MCP servers a session should connect: those from Rein's settings, then those from the project's `.mcp.json`
 * (a settings entry wins over a project entry of the same name). Servers defined by the project — in `.mcp.json`
 * or in the committed `.rein/settings.json` — start only once trusted. Never throws: each unusable or untrusted
 * entry becomes one sentence in `problems`.
 */
export function loadMcpConfig(options: LoadMcpConfigOptions): { servers: McpServerConfig[]; problems: string[] } {
  const env = options.env ?? process.env
  const trusted = options.trustProject ? undefined : trustedServers(options.home, options.cwd)
  const isTrusted = (key: string, raw: unknown) => trusted === undefined || trusted[key] === definitionHash(raw)
  const untrusted = (key: string, name: string, path: string) =>
    `MCP server "${name}" in ${path} ${trusted?.[key] === undefined ? 'is new' : 'changed since it was trusted'} and will not start; run \`rein mcp trust\` to allow it.`

  const configured = options.settings.mcpServers
  const settingsServers = isRecord(configured) ? configured : {}
  const fromProjectSettings = projectSettingsServerNames(options.cwd)
  const allowed: Record<string, unknown> = {}
  const problems: string[] = []
  for (const [name, raw] of Object.entries(settingsServers)) {
    if (fromProjectSettings.has(name) && !isTrusted(settingsKey(name), raw)) {
      problems.push(untrusted(settingsKey(name), name, join(options.cwd, '.rein', 'settings.json')))
    } else {
      allowed[name] = raw
    }
  }
  // A malformed `mcpServers` value goes to the parser as it is, which reports it.
  const fromSettings = parseServerMap(isRecord(configured) ? allowed : configured, 'settings', 'settings', env)
  const servers = [...fromSettings.servers]
  problems.push(...fromSettings.problems)
  const project = readProjectMcpFile(options.cwd)
  if (project.problem) problems.push(project.problem)
  for (const [name, raw] of Object.entries(project.servers ?? {})) {
    if (name in settingsServers) continue
    if (!isTrusted(name, raw)) {
      problems.push(untrusted(name, name, project.path))
      continue
    }
    const parsed = parseServer(name, raw, project.path, env)
    if (typeof parsed === 'string') problems.push(parsed)
    else servers.push({ ...parsed, origin: 'project' })
  }
  return { servers, problems }
}

/**
 * Trusts every server the project now defines: all of `.mcp.json`, and those of the merged `settings` whose names
 * the committed `.rein/settings.json` defines. Returns their names, or throws a one-sentence error.
 */
export function trustProjectMcp(options: { cwd: string; home: string; settings?: { mcpServers?: unknown } }): string[] {
  const project = readProjectMcpFile(options.cwd)
  if (project.problem) throw new Error(project.problem)
  const configured = options.settings?.mcpServers
  const names = projectSettingsServerNames(options.cwd)
  const fromSettings = isRecord(configured) ? Object.entries(configured).filter(([name]) => names.has(name)) : []
  if (!project.servers && fromSettings.length === 0) throw new Error(`There is no ${project.path}; nothing to trust.`)
  storeTrust(options.home, options.cwd, {
    ...(project.servers ?? {}),
    ...Object.fromEntries(fromSettings.map(([name, raw]) => [settingsKey(name), raw])),
  })
  return [...Object.keys(project.servers ?? {}), ...fromSettings.map(([name]) => name)]
}
