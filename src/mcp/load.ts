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
 * The MCP servers a session should connect: those from Rein's settings, then those from the project's `.mcp.json`
 * that are trusted (a settings entry wins over a project entry of the same name). Never throws: each unusable or
 * untrusted entry becomes one sentence in `problems`.
 */
export function loadMcpConfig(options: LoadMcpConfigOptions): { servers: McpServerConfig[]; problems: string[] } {
  const env = options.env ?? process.env
  const fromSettings = parseServerMap(options.settings.mcpServers, 'settings', 'settings', env)
  const servers = [...fromSettings.servers]
  const problems = [...fromSettings.problems]
  const project = readProjectMcpFile(options.cwd)
  if (project.problem) problems.push(project.problem)
  const trusted = options.trustProject ? {} : trustedServers(options.home, options.cwd)
  for (const [name, raw] of Object.entries(project.servers ?? {})) {
    if (servers.some((server) => server.name === name)) continue
    if (!options.trustProject && trusted[name] !== definitionHash(raw)) {
      const state = trusted[name] === undefined ? 'is new' : 'changed since it was trusted'
      problems.push(`MCP server "${name}" in ${project.path} ${state} and will not start; run \`rein mcp trust\` to allow it.`)
      continue
    }
    const parsed = parseServer(name, raw, project.path, env)
    if (typeof parsed === 'string') problems.push(parsed)
    else servers.push({ ...parsed, origin: 'project' })
  }
  return { servers, problems }
}

/** Trusts every server now defined in the project's `.mcp.json`. Returns their names, or throws a one-sentence error. */
export function trustProjectMcp(options: { cwd: string; home: string }): string[] {
  const project = readProjectMcpFile(options.cwd)
  if (project.problem) throw new Error(project.problem)
  if (!project.servers) throw new Error(`There is no ${project.path}; nothing to trust.`)
  storeTrust(options.home, options.cwd, project.servers)
  return Object.keys(project.servers)
}
