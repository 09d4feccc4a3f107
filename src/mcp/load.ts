import { readFileSync } from 'node:fs'
import { readConfigFile } from '../fs/read-gate.js'
import { join } from 'node:path'
import { type McpServerConfig, parseServer, parseServerMap } from './config.js'
import { definitionHash, storeTrust, trustedServers } from './trust.js'
import { serverSummary } from '../config/trust-report.js'
import type { Grant } from '../trust/grant.js'

export interface LoadMcpConfigOptions {
  /** The project directory; its `.mcp.json` is read. */
  cwd: string
  /** Rein's merged settings; `mcpServers` has the `.mcp.json` shape. */
  settings: { mcpServers?: unknown }
  /** REIN_HOME, where project trust is stored. */
  home: string
  /** The workspace is trusted (`src/trust/`, `--trust-project`): project servers start without their own trust. */
  trustProject?: boolean
  /** Leave untrusted servers out of `problems` (the caller names them in the one workspace-trust notice). */
  quietUntrusted?: boolean
  /** For `${VAR}` expansion; defaults to `process.env`. */
  env?: Record<string, string | undefined>
  /** `--setting-sources` without `project`: the project's `.mcp.json` is not read. */
  skipProjectFile?: boolean
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
  // Through the read gate's own checks (docs/trust.md): no link out of the workspace, no pipe that would block start-up.
  const read = readConfigFile(path, { dir: cwd, base: cwd })
  if (read.kind === 'absent') return { path }
  if (read.kind === 'skipped') return { path, problem: `${path} was not read: ${read.reason}.` }
  const text = read.bytes.toString('utf8')
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
 * The MCP loader's report for workspace trust: each server `.mcp.json` defines, read as `loadMcpConfig` reads it
 * (servers the `.rein` settings files define are in the settings loader's report).
 */
export function mcpFileGrants(places: { cwd: string }): Grant[] {
  const mcp = readProjectMcpFile(places.cwd)
  return Object.entries(mcp.servers ?? {}).map(([name, raw]) => ({ kind: 'mcpServer', file: mcp.path, label: `MCP server "${name}"${serverSummary(raw)}`, value: { name, raw } }))
}

/**
 * The servers that the project's settings files define, by name, with the file that defines each (the later file
 * wins, as in the merge). Both files live in the repository — `.rein/settings.local.json` can be committed too — so
 * their servers need trust just like `.mcp.json`'s; a malformed file is the settings loader's to report.
 */
function projectSettingsServers(cwd: string): Map<string, string> {
  const found = new Map<string, string>()
  for (const file of [join(cwd, '.rein', 'settings.json'), join(cwd, '.rein', 'settings.local.json')]) {
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { mcpServers?: unknown } | null
      const servers = parsed?.mcpServers
      if (isRecord(servers)) for (const name of Object.keys(servers)) found.set(name, file)
    } catch {
      // No such file, or one the settings loader rejects with its own message: no project servers from it.
    }
  }
  return found
}

/** A project server that did not start for want of trust. */
export interface UntrustedServer {
  name: string
  /** The file that defines it. */
  file: string
  /** `new`: never trusted; `changed`: trusted once, edited since. */
  status: 'new' | 'changed'
  raw: unknown
}

/** The trust key of a server that comes from project settings rather than `.mcp.json`. */
const settingsKey = (name: string) => `settings:${name}`

/**
 * The MCP servers a session should connect: those from Rein's settings, then those from the project's `.mcp.json`
 * (a settings entry wins over a project entry of the same name). Servers defined by the project — in `.mcp.json`
 * or in `.rein/settings.json` / `.rein/settings.local.json` — start only once trusted (the workspace, or each server). Never throws: each unusable or untrusted
 * entry becomes one sentence in `problems`; untrusted ones are also listed in `untrusted`.
 */
export function loadMcpConfig(options: LoadMcpConfigOptions): { servers: McpServerConfig[]; problems: string[]; untrusted: UntrustedServer[] } {
  const env = options.env ?? process.env
  const trusted = options.trustProject ? undefined : trustedServers(options.home, options.cwd)
  const isTrusted = (key: string, raw: unknown) => trusted === undefined || trusted[key] === definitionHash(raw)
  const problems: string[] = []
  const untrusted: UntrustedServer[] = []
  const skip = (key: string, name: string, path: string, raw: unknown) => {
    const status = trusted?.[key] === undefined ? 'new' : 'changed'
    untrusted.push({ name, file: path, status, raw })
    if (options.quietUntrusted) return
    problems.push(
      `MCP server "${name}" in ${path} ${status === 'new' ? 'is new' : 'changed since it was trusted'} and will not start; run \`rein mcp trust\` to allow it.`,
    )
  }

  const configured = options.settings.mcpServers
  const settingsServers = isRecord(configured) ? configured : {}
  const fromProjectSettings = projectSettingsServers(options.cwd)
  const allowed: Record<string, unknown> = {}
  for (const [name, raw] of Object.entries(settingsServers)) {
    const projectFile = fromProjectSettings.get(name)
    if (projectFile !== undefined && !isTrusted(settingsKey(name), raw)) {
      skip(settingsKey(name), name, projectFile, raw)
    } else {
      allowed[name] = raw
    }
  }
  // A malformed `mcpServers` value goes to the parser as it is, which reports it.
  const fromSettings = parseServerMap(isRecord(configured) ? allowed : configured, 'settings', 'settings', env)
  const servers = [...fromSettings.servers]
  problems.push(...fromSettings.problems)
  const project: ProjectMcpFile = options.skipProjectFile ? { path: join(options.cwd, '.mcp.json') } : readProjectMcpFile(options.cwd)
  if (project.problem) problems.push(project.problem)
  for (const [name, raw] of Object.entries(project.servers ?? {})) {
    if (name in settingsServers) continue
    if (!isTrusted(name, raw)) {
      skip(name, name, project.path, raw)
      continue
    }
    const parsed = parseServer(name, raw, project.path, env)
    if (typeof parsed === 'string') problems.push(parsed)
    else servers.push({ ...parsed, origin: 'project' })
  }
  return { servers, problems, untrusted }
}

/**
 * Trusts every server the project now defines: all of `.mcp.json`, and those of the merged `settings` whose names
 * the committed `.rein/settings.json` defines. Returns their names, or throws a one-sentence error.
 */
export function trustProjectMcp(options: { cwd: string; home: string; settings?: { mcpServers?: unknown } }): string[] {
  const project = readProjectMcpFile(options.cwd)
  if (project.problem) throw new Error(project.problem)
  const configured = options.settings?.mcpServers
  const names = projectSettingsServers(options.cwd)
  const fromSettings = isRecord(configured) ? Object.entries(configured).filter(([name]) => names.has(name)) : []
  if (!project.servers && fromSettings.length === 0) throw new Error(`There is no ${project.path}; nothing to trust.`)
  storeTrust(options.home, options.cwd, {
    ...(project.servers ?? {}),
    ...Object.fromEntries(fromSettings.map(([name, raw]) => [settingsKey(name), raw])),
  })
  return [...Object.keys(project.servers ?? {}), ...fromSettings.map(([name]) => name)]
}
