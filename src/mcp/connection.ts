import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'
import type { ToolOutput } from '../tools/tool.js'
import { childEnv } from '../tools/child-env.js'
import type { McpServerConfig } from './config.js'
import { errorOutput, toToolOutput } from './result.js'
import { StderrTail } from './stderr-tail.js'

/** Where one server's connection stands. Only a `connected` server contributes tools. */
export type ServerState = 'connecting' | 'connected' | 'restarting' | 'failed' | 'closed'

export type NoticeLevel = 'info' | 'warning' | 'error'

/** When to try a lost server again: `initialDelayMs`, doubling up to `maxDelayMs`, at most `maxAttempts` times. */
export interface RestartPolicy {
  initialDelayMs: number
  maxDelayMs: number
  maxAttempts: number
}

export interface ConnectionOptions {
  /** Working directory of stdio servers. */
  cwd?: string
  /** How long the `initialize` handshake plus the first `tools/list` may take, in milliseconds. */
  connectTimeoutMs: number
  restart: RestartPolicy
  clientVersion: string
  /** Called after the server's tool list changed (connected, lost, or `notifications/tools/list_changed`). */
  onToolsChanged(): void
  onNotice(level: NoticeLevel, message: string): void
}

/** `60 s`, or `300 ms` below a second. */
function duration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * One configured MCP server and the client talking to it. Owns the lifecycle: connect, watch for the server going
 * away, report that once, and reconnect with exponential backoff until the restart policy gives up. Tool calls go
 * to whichever client is current, so a tool object outlives restarts.
 */
export class ServerConnection {
  readonly config: McpServerConfig
  state: ServerState = 'connecting'
  /** The last failure, one sentence, while the server is not connected. */
  error?: string
  /** The server's tools as it listed them; empty unless connected. */
  tools: McpTool[] = []

  private readonly options: ConnectionOptions
  private client?: Client
  private stderr = new StderrTail()
  private attempts = 0
  private timer?: NodeJS.Timeout
  /** True from the first failure report until the server is connected again: a lost server is reported once. */
  private reported = false
  private closing = false
  private probing = false

  constructor(config: McpServerConfig, options: ConnectionOptions) {
    this.config = config
    this.options = options
  }

  /** Connects once; on failure reports it and schedules restarts. Never rejects. */
  async start(): Promise<void> {
    await this.connect()
  }

  /**
   * Calls one tool by the name the server uses. Every failure becomes an error result the model can act on: a
   * timeout (the request is cancelled on the server), a server that went away mid-call, a protocol error.
   */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<ToolOutput> {
    const client = this.client
    const server = this.config.name
    if (!client || this.state !== 'connected') {
      return errorOutput(`MCP server "${server}" is not connected (${this.state}); its tools are unavailable until it restarts.`)
    }
    // The SDK adds an abort listener to the signal it is given and never removes it. The turn's signal lives for many
    // calls, so each call gets its own signal, linked to the turn's only until the call ends.
    const own = new AbortController()
    const forward = (): void => own.abort(signal.reason)
    if (signal.aborted) own.abort(signal.reason)
    else signal.addEventListener('abort', forward, { once: true })
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, { signal: own.signal, timeout: timeoutMs })
      return toToolOutput(result)
    } catch (error) {
      if (signal.aborted) return errorOutput(`the call to MCP tool "${tool}" was cancelled by the user.`)
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        return errorOutput(
          `MCP tool "${tool}" on server "${server}" did not finish within ${duration(timeoutMs)} and was cancelled; its outcome is unknown.`,
        )
      }
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
        this.lost(client, 'closed the connection')
        return errorOutput(`MCP server "${server}" stopped while running "${tool}"; the call's outcome is unknown.`)
      }
      if (error instanceof McpError) return errorOutput(`MCP server "${server}" rejected the call to "${tool}": ${error.message}`)
      // Anything else is the transport failing (an HTTP server that went away, a broken pipe): the connection is gone.
      this.lost(client, `failed (${describeError(error)})`)
      return errorOutput(`MCP server "${server}" could not be reached while running "${tool}" (${describeError(error)}); the call's outcome is unknown.`)
    } finally {
      signal.removeEventListener('abort', forward)
    }
  }

  async close(): Promise<void> {
    this.closing = true
    this.state = 'closed'
    clearTimeout(this.timer)
    const client = this.client
    this.client = undefined
    this.tools = []
    await client?.close().catch(() => {
      // Closing a client whose transport already failed can throw; the process or socket is gone either way.
    })
  }

  private transport(): Transport {
    const config = this.config
    if (config.transport) return config.transport()
    if (config.type === 'http' || (config.url !== undefined && config.command === undefined)) {
      return new StreamableHTTPClientTransport(new URL(config.url ?? ''), { requestInit: { headers: config.headers ?? {} } })
    }
    const transport = new StdioClientTransport({
      command: config.command ?? '',
      args: config.args ?? [],
      // The SDK's small default set (PATH, HOME, …), never Rein's secrets, plus exactly what the definition names.
      env: childEnv(getDefaultEnvironment(), { pass: Object.keys(config.env ?? {}), set: config.env ?? {} }) as Record<string, string>,
      cwd: this.options.cwd,
      stderr: 'pipe',
    })
    this.stderr = new StderrTail()
    transport.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk))
    return transport
  }

  private async connect(): Promise<void> {
    if (this.closing) return
    const client = new Client({ name: 'rein', version: this.options.clientVersion }, { capabilities: {} })
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refresh(client))
    this.client = client
    try {
      await client.connect(this.transport(), { timeout: this.options.connectTimeoutMs })
      const tools = await this.listTools(client)
      if (this.client !== client) {
        // Closed (or replaced) while connecting: this client is nobody's, so it must not keep a process alive.
        await client.close().catch(() => {
          // Already closing; nothing else holds it.
        })
        return
      }
      // Watched only from here on: a server that exits during the handshake is a start failure, reported below.
      client.onclose = () => this.lost(client, 'exited')
      client.onerror = () => void this.probe(client)
      this.tools = tools
      this.state = 'connected'
      this.error = undefined
      this.attempts = 0
      if (this.reported) this.options.onNotice('info', `MCP server "${this.config.name}" is connected again.`)
      this.reported = false
      this.options.onToolsChanged()
    } catch (error) {
      if (this.client !== client) return
      this.client = undefined
      await client.close().catch(() => {
        // The half-open client is discarded; its close error adds nothing to the failure being reported.
      })
      this.fail(`failed to start (${describeError(error)})`)
    }
  }

  /** All pages of `tools/list`, bounded by the connect timeout each. */
  private async listTools(client: Client): Promise<McpTool[]> {
    if (!client.getServerCapabilities()?.tools) return []
    const tools: McpTool[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.options.connectTimeoutMs })
      tools.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor)
    return tools
  }

  private async refresh(client: Client): Promise<void> {
    try {
      const tools = await this.listTools(client)
      if (this.client !== client || this.state !== 'connected') return
      this.tools = tools
      this.options.onToolsChanged()
    } catch (error) {
      if (this.client !== client) return
      this.options.onNotice('warning', `MCP server "${this.config.name}" announced new tools but listing them failed (${describeError(error)}); keeping the previous list.`)
    }
  }

  /**
   * Checks, after a transport error, whether the server still answers. Needed for HTTP: when the server dies
   * mid-call the SDK reports the broken response stream as an error but leaves the request pending until its
   * timeout. A failed ping closes the client, which fails every pending call at once.
   */
  private async probe(client: Client): Promise<void> {
    if (this.probing || this.client !== client) return
    this.probing = true
    try {
      await client.ping({ timeout: Math.min(this.options.connectTimeoutMs, 5000) })
    } catch (error) {
      this.lost(client, `stopped responding (${describeError(error)})`)
    } finally {
      this.probing = false
    }
  }

  /** The client in use stopped working (the process exited, the socket failed). Acts once per client. */
  private lost(client: Client, what: string): void {
    if (this.closing || this.client !== client) return
    this.client = undefined
    client.onclose = undefined
    void client.close().catch(() => {
      // The transport is already broken; closing only releases what is left of it.
    })
    this.fail(what)
  }

  private fail(what: string): void {
    const hadTools = this.tools.length > 0
    this.tools = []
    this.error = `MCP server "${this.config.name}" ${what}.`
    const willRetry = this.attempts < this.options.restart.maxAttempts
    this.state = willRetry ? 'restarting' : 'failed'
    if (hadTools) this.options.onToolsChanged()
    if (!this.reported) {
      this.reported = true
      const tail = this.stderr.text()
      const next = willRetry ? 'Rein will retry with backoff; the session goes on without its tools.' : 'The session goes on without its tools.'
      this.options.onNotice('error', `${this.error} ${next}${tail ? `\nLast stderr:\n${tail}` : ''}`)
    }
    if (!willRetry) return
    const delay = Math.min(this.options.restart.initialDelayMs * 2 ** this.attempts, this.options.restart.maxDelayMs)
    this.attempts += 1
    this.timer = setTimeout(() => void this.connect(), delay)
    this.timer.unref()
  }
}
