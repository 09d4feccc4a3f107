import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'

/**
 * MCP server definitions: the shape Rein works with, and the parsing of the shapes users write (Claude Code's
 * `.mcp.json` / settings `mcpServers` object) and editors send (ACP `session/new` `mcpServers` list).
 */

/**
 * One MCP server to connect. `type` defaults to `stdio` when `command` is set and to `http` when `url` is set.
 * Values are final: `${VAR}` references have already been expanded.
 */
export interface McpServerConfig {
  name: string
  command?: string
  args?: string[]
  env?: Record<string, string>
  type?: 'stdio' | 'http'
  url?: string
  headers?: Record<string, string>
  /** Where the config came from, for `rein mcp list` and notices: `settings`, `project` (.mcp.json), `acp`, … */
  origin?: string
  /** A server reached neither by process nor URL (an Agent SDK program's in-process server): makes its transport. */
  transport?: () => Transport
}

/** What parsing produced: the servers that are usable, and one sentence for each entry that is not. */
export interface ParsedServers {
  servers: McpServerConfig[]
  problems: string[]
}

type Env = Record<string, string | undefined>

/**
 * Expands `${VAR}` and `${VAR:-default}` the way Claude Code does in `.mcp.json`. An unset variable without a
 * default is reported in `missing` and expands to the empty string.
 */
export function expandVars(text: string, env: Env, missing: Set<string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, name: string, fallback?: string) => {
    const value = env[name]
    if (value !== undefined && value !== '') return value
    if (fallback !== undefined) return fallback
    missing.add(name)
    return ''
  })
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function stringRecord(value: unknown): Record<string, string> | undefined | null {
  if (value === undefined) return undefined
  if (!isRecord(value)) return null
  const out: Record<string, string> = {}
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') return null
    out[key] = item
  }
  return out
}

/** ACP sends env and headers as `[{name, value}]`; Claude Code writes objects. Both become an object. */
function nameValueList(value: unknown): Record<string, string> | undefined | null {
  if (!Array.isArray(value)) return stringRecord(value)
  const out: Record<string, string> = {}
  for (const item of value) {
    if (!isRecord(item) || typeof item.name !== 'string' || typeof item.value !== 'string') return null
    out[item.name] = item.value
  }
  return out
}

/**
 * Parses one server definition. Returns a sentence naming the server and the fix when the entry is unusable.
 * `where` names the file or source for that sentence; `env` expands `${VAR}` references, `null` keeps text literal.
 */
export function parseServer(name: string, raw: unknown, where: string, env: Env | null = process.env): McpServerConfig | string {
  if (!isRecord(raw)) return `MCP server "${name}" in ${where} is not an object; write {"command": …} or {"type": "http", "url": …}.`
  const declared = raw.type
  if (declared !== undefined && declared !== 'stdio' && declared !== 'http' && declared !== 'streamable-http') {
    return `MCP server "${name}" in ${where} has type "${String(declared)}"; Rein supports "stdio" and "http" (streamable HTTP).`
  }
  const type: 'stdio' | 'http' =
    declared === 'http' || declared === 'streamable-http' || (declared === undefined && raw.url !== undefined && raw.command === undefined)
      ? 'http'
      : 'stdio'
  const missing = new Set<string>()
  const expand = (text: string) => (env ? expandVars(text, env, missing) : text)
  const expandRecord = (record: Record<string, string> | undefined) =>
    record && Object.fromEntries(Object.entries(record).map(([key, value]) => [key, expand(value)]))
  let server: McpServerConfig
  if (type === 'stdio') {
    if (typeof raw.command !== 'string' || raw.command.trim() === '') {
      return `MCP server "${name}" in ${where} has no "command"; add the program to run, or set "type": "http" and a "url".`
    }
    const args = raw.args ?? []
    if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) {
      return `MCP server "${name}" in ${where} has "args" that are not a list of strings; fix the "args" entry.`
    }
    const envVars = nameValueList(raw.env)
    if (envVars === null) return `MCP server "${name}" in ${where} has an "env" that is not an object of strings; fix the "env" entry.`
    server = { name, type, command: expand(raw.command), args: args.map(expand), env: expandRecord(envVars) ?? {} }
  } else {
    if (typeof raw.url !== 'string') return `MCP server "${name}" in ${where} has no "url"; add the server's streamable HTTP endpoint.`
    const headers = nameValueList(raw.headers)
    if (headers === null) return `MCP server "${name}" in ${where} has "headers" that are not an object of strings; fix the "headers" entry.`
    const url = expand(raw.url)
    if (!URL.canParse(url)) return `MCP server "${name}" in ${where} has the url "${url}", which is not a URL; fix the "url" entry.`
    server = { name, type, url, headers: expandRecord(headers) ?? {} }
  }
  if (missing.size > 0) {
    return `MCP server "${name}" in ${where} uses ${[...missing].map((v) => '${' + v + '}').join(', ')}, which ${missing.size === 1 ? 'is' : 'are'} not set; set ${missing.size === 1 ? 'it' : 'them'} or add a default with \${VAR:-value}.`
  }
  return server
}

/** Parses a Claude Code style `mcpServers` object: `{name: {command, args, env} | {type: "http", url, headers}}`. */
export function parseServerMap(value: unknown, where: string, origin: string, env: Env = process.env): ParsedServers {
  const out: ParsedServers = { servers: [], problems: [] }
  if (value === undefined || value === null) return out
  if (!isRecord(value)) {
    out.problems.push(`"mcpServers" in ${where} is not an object; write {"name": {"command": …}}.`)
    return out
  }
  for (const [name, raw] of Object.entries(value)) {
    const parsed = parseServer(name, raw, where, env)
    if (typeof parsed === 'string') out.problems.push(parsed)
    else out.servers.push({ ...parsed, origin })
  }
  return out
}

/**
 * Parses a list of servers as ACP `session/new` sends them (`[{name, command, args, env: [{name, value}]}` or
 * `{type: "http", name, url, headers: [{name, value}]}`); entries already shaped as `McpServerConfig` pass too.
 * ACP's `sse` transport is reported as unsupported.
 */
export function parseServerList(list: readonly unknown[], origin = 'acp'): ParsedServers {
  const out: ParsedServers = { servers: [], problems: [] }
  list.forEach((raw, index) => {
    const name = isRecord(raw) && typeof raw.name === 'string' && raw.name !== '' ? raw.name : `server-${index + 1}`
    // Values an editor sends are final: no `${VAR}` expansion.
    const parsed = parseServer(name, raw, `the ${origin} server list`, null)
    if (typeof parsed === 'string') out.problems.push(parsed)
    else out.servers.push({ ...parsed, origin })
  })
  return out
}
