import { readFileSync } from 'node:fs'
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'
import type { AnyTool, Tool, ToolCategory } from '../tools/tool.js'
import type { McpServerConfig } from './config.js'
import { type NoticeLevel, type RestartPolicy, ServerConnection, type ServerState } from './connection.js'
import { uniqueToolNames } from './names.js'
import { argumentsSchema, modelSchema } from './schema.js'

export interface McpManagerOptions {
  /** How long one tool call may run before it is cancelled and answered with an error result. Default 60 s. */
  timeoutMs?: number
  /** How long a server may take to start and list its tools. Default 30 s. */
  connectTimeoutMs?: number
  /** Reconnecting a lost server. Default: 1 s doubling to 30 s, 5 attempts. */
  restart?: Partial<RestartPolicy>
  /** Working directory of stdio servers (the session's cwd). Default: the process's. */
  cwd?: string
  /** Where failures and recoveries are reported (the agent's `notify`). Default: stderr. */
  onNotice?: (level: NoticeLevel, message: string) => void
}

/** One line of `rein mcp list` or a UI's server panel. `tools` are the model-visible names. */
export interface McpServerStatus {
  name: string
  state: ServerState
  transport: 'stdio' | 'http' | 'sdk'
  origin?: string
  tools: string[]
  error?: string
}

/** An MCP tool as the agent runs it: an ordinary tool, plus where it came from. */
export interface McpAgentTool extends Tool<Record<string, unknown>> {
  parameters: Record<string, unknown>
  server: string
  /** The tool's name on its server. */
  mcpName: string
}

const DEFAULT_RESTART: RestartPolicy = { initialDelayMs: 1000, maxDelayMs: 30_000, maxAttempts: 5 }

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version
  } catch {
    // Outside the package layout (bundled), the client still needs some version to send in `initialize`.
    return '0.0.0'
  }
}

/**
 * The MCP servers of one agent and the tools they offer. Servers connect in parallel; a server that fails or dies
 * is reported once through `onNotice`, drops out of `tools()`, and is restarted with backoff while the session goes
 * on. `tools()` is sorted by name so the request header stays byte-stable while nothing changes.
 */
export class McpManager {
  private readonly connections: ServerConnection[]
  private readonly timeoutMs: number
  private readonly listeners = new Set<() => void>()
  private cached?: McpAgentTool[]

  constructor(servers: McpServerConfig[], options: McpManagerOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 60_000
    const onNotice = options.onNotice ?? ((level, message) => process.stderr.write(`rein: ${level}: ${message}\n`))
    const seen = new Set<string>()
    const unique = servers.filter((server) => !seen.has(server.name) && seen.add(server.name))
    const clientVersion = packageVersion()
    this.connections = unique.map(
      (config) =>
        new ServerConnection(config, {
          cwd: options.cwd,
          connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
          restart: { ...DEFAULT_RESTART, ...options.restart },
          clientVersion,
          onNotice,
          onToolsChanged: () => this.changed(),
        }),
    )
  }

  /** Connects every server; resolves when each has connected or failed (failures are reported, never thrown). */
  async start(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.start()))
  }

  /** The tools of every connected server, sorted by name. The same array is returned until the set changes. */
  tools(): AnyTool[] {
    this.cached ??= this.build()
    return this.cached
  }

  /** Called whenever `tools()` would return something different. Returns the unsubscribe function. */
  onToolsChanged(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  status(): McpServerStatus[] {
    const names = new Map<string, string[]>()
    for (const tool of this.tools() as McpAgentTool[]) names.set(tool.server, [...(names.get(tool.server) ?? []), tool.name])
    return this.connections.map((connection) => {
      const status: McpServerStatus = {
        name: connection.config.name,
        state: connection.state,
        transport: connection.config.transport ? 'sdk' : connection.config.type === 'http' || connection.config.command === undefined ? 'http' : 'stdio',
        tools: names.get(connection.config.name) ?? [],
      }
      if (connection.config.origin) status.origin = connection.config.origin
      if (connection.error && connection.state !== 'connected') status.error = connection.error
      return status
    })
  }

  /** Stops every server (stdio processes are ended) and cancels pending restarts. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close()))
    this.changed()
    this.listeners.clear()
  }

  private changed(): void {
    this.cached = undefined
    for (const listener of [...this.listeners]) listener()
  }

  private build(): McpAgentTool[] {
    const taken = new Set<string>()
    const tools: McpAgentTool[] = []
    for (const connection of this.connections) {
      const names = uniqueToolNames(connection.config.name, connection.tools.map((tool) => tool.name), taken)
      connection.tools.forEach((tool, index) => {
        taken.add(names[index])
        tools.push(this.agentTool(connection, tool, names[index]))
      })
    }
    return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }

  private agentTool(connection: ServerConnection, tool: McpTool, name: string): McpAgentTool {
    const parameters = modelSchema(tool.inputSchema)
    const timeoutMs = this.timeoutMs
    return {
      name,
      description: tool.description ?? tool.title ?? `The "${tool.name}" tool of MCP server "${connection.config.name}".`,
      schema: argumentsSchema(tool.inputSchema),
      parameters,
      readOnly: tool.annotations?.readOnlyHint === true,
      category: categoryOf(tool.annotations),
      kind: 'other',
      server: connection.config.name,
      mcpName: tool.name,
      run: (args, ctx) => connection.call(tool.name, args, ctx.signal, timeoutMs),
    }
  }
}

/**
 * An MCP tool's permission category, from the hints its server gives (MCP spec, tool annotations). Only a tool
 * that says it is read-only and stays in a closed world (`openWorldHint: false`) is a free read; a read-only tool
 * that may reach outside (the spec's default) is treated like a fetch; everything else is `other` and asks.
 */
export function categoryOf(annotations: McpTool['annotations']): ToolCategory {
  if (annotations?.readOnlyHint !== true) return 'other'
  return annotations.openWorldHint === false ? 'read' : 'fetch'
}
