import type { Extension } from '../../../agent/extensions.js'
import { ExchangeTransport } from '../../../mcp/control-transport.js'
import type { McpServerConfig } from '../../../mcp/config.js'
import type { OpenedAgent } from '../../../runtime/open.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { ControlChannel } from './channel.js'
import { initializeResponse, registerAgentHandlers, type ControlState } from './handlers.js'
import { sdkHooks } from './hooks.js'
import { InputPump } from './input-pump.js'
import { sdkPermissionAsker } from './permission.js'
import { initOptions, type InitOptions } from './init-options.js'
import { initializeRequest, type InitializeRequest } from './wire.js'

export interface ControlOptions {
  input: AsyncIterable<Buffer | string>
  /** The longest stdin line read, in bytes. */
  lineLimit: number
  cwd: string
  write: (line: unknown) => void
  report: (message: string) => void
  /** `--permission-prompt-tool`: with `stdio`, questions for a person go to the SDK as `can_use_tool`. */
  permissionPromptTool?: string
  /** The run started in `dontAsk` (`--permission-mode dontAsk`): questions are refused unasked until the mode changes. */
  dontAsk?: boolean
}

/** What the agent is opened with: the SDK program's in-process MCP servers, hook callbacks, system prompt and agents. */
export interface ControlExtras extends InitOptions {
  mcpServers: McpServerConfig[]
  extensions: Extension[]
}

/**
 * The control protocol of one stream-json run. Started before the agent opens, it reads stdin at once; `extras()`
 * waits for the first line and, when that is `initialize`, turns what it registered into MCP servers and hooks for
 * the agent to be opened with. `attach` answers `initialize` and the requests that need the agent.
 */
export class ControlSession {
  readonly channel: ControlChannel
  readonly pump: InputPump
  private init?: InitializeRequest
  /** The initialize request when it was the first line: what the agent is opened with. */
  private registered?: InitializeRequest
  private readonly state: ControlState
  private opened!: (value: OpenedAgent) => void
  private readonly agentOpen = new Promise<OpenedAgent>((resolve) => (this.opened = resolve))

  constructor(private readonly options: ControlOptions) {
    this.state = { dontAsk: options.dontAsk === true, interrupted: new Set() }
    this.channel = new ControlChannel(options.write, options.report)
    this.channel.handle('initialize', async (request) => {
      if (this.init) throw new Error('This session is already initialized; Rein takes one initialize request per run.')
      const parsed = initializeRequest.safeParse(request)
      if (!parsed.success) {
        const issue = parsed.error.issues[0]
        throw new Error(`The initialize request is malformed (${issue.path.join('.') || 'request'}: ${issue.message}).`)
      }
      this.init = parsed.data
      // Only an initialize that is the first line shapes the session: later, the agent may already be open.
      if (this.pump.handled === 0) this.registered = parsed.data
      else if (['hooks', 'sdkMcpServers', 'systemPrompt', 'appendSystemPrompt', 'agents', 'settings', 'disallowedTools', 'managedSettings', 'mcpServers'].some((key) => request[key] !== undefined)) {
        this.options.report('The initialize request came after the first line of input, so its hooks, SDK MCP servers, system prompt, agents and settings were not registered; send it first.')
      }
      const opened = await this.agentOpen
      const hooksApplied = parsed.data.hooks === undefined ? undefined : this.registered === parsed.data
      return initializeResponse(opened, hooksApplied)
    })
    this.pump = new InputPump(options.input, options.lineLimit, this.channel, options.report, options.write)
    if (options.permissionPromptTool !== undefined && options.permissionPromptTool !== 'stdio') {
      options.report(`--permission-prompt-tool ${options.permissionPromptTool} is not supported (only stdio); calls that need permission are refused.`)
    }
  }

  /** Waits for the first input line; what an `initialize` there asked for, as the agent's servers and extensions. */
  async extras(): Promise<ControlExtras> {
    await this.pump.first
    const init = this.registered
    if (!init) return { mcpServers: [], extensions: [], agentTypes: [], configServers: [] }
    const { options, problems } = initOptions(init, this.options.cwd)
    problems.forEach(this.options.report)
    const mcpServers = (init.sdkMcpServers ?? []).map((name): McpServerConfig => ({ name, origin: 'sdk', transport: () => this.mcpTransport(name) }))
    const extensions: Extension[] = []
    if (init.hooks) {
      const hooks = sdkHooks(init.hooks, this.channel, this.options.cwd)
      if (hooks.ignored.length) this.options.report(`Rein does not run the SDK hook events ${hooks.ignored.join(', ')}; their callbacks are never called.`)
      extensions.push(hooks.extension)
    }
    return { ...options, mcpServers: [...options.configServers, ...mcpServers], extensions }
  }

  /** The agent is open: requests that need it are answered from now on, `initialize` included. */
  attach(opened: OpenedAgent): void {
    registerAgentHandlers(this.channel, opened, this.state)
    if (this.options.permissionPromptTool === 'stdio') {
      const ask = sdkPermissionAsker(this.channel, () => opened.agent.cancel(), this.options.report, opened.applyPermissionUpdates)
      // dontAsk: refused as when nothing can ask, so the call is in the result's permission_denials as in Claude Code.
      opened.agent.permissionAsker = (request, signal) => (this.state.dontAsk ? Promise.resolve({ outcome: 'unanswered' }) : ask(request, signal))
    }
    this.opened(opened)
  }

  /** Whether `turn` ended because the SDK sent `interrupt`: the run's exit code does not count it as a failure. */
  interruptedTurn(turn: number | undefined): boolean {
    return turn !== undefined && this.state.interrupted.has(turn)
  }

  private mcpTransport(server: string): ExchangeTransport {
    return new ExchangeTransport(async (message) => {
      const answer = await this.channel.request({ subtype: 'mcp_message', server_name: server, message })
      return answer.mcp_response as JSONRPCMessage | undefined
    })
  }
}
