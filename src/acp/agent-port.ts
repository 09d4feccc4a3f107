import type { AgentApi, PermissionMode } from '../agent/types.js'
import type { McpServerConfig } from '../mcp/config.js'
import type { SessionEvent } from '../session/events.js'
import type { AnyTool } from '../tools/tool.js'

/**
 * The part of a Rein agent the ACP server uses. `AgentApi` satisfies it; naming the subset keeps the server
 * testable with a small stand-in and says exactly what an editor session depends on.
 */
export type AcpAgent = Pick<
  AgentApi,
  | 'cwd'
  | 'config'
  | 'permissionMode'
  | 'busy'
  | 'followUp'
  | 'steer'
  | 'cancel'
  | 'whenIdle'
  | 'subscribe'
  | 'setPermissionMode'
  | 'setModel'
  | 'close'
  | 'permissionAsker'
  | 'runCommand'
  | 'compact'
> & {
  /** The session behind the agent: its id is the ACP session id; its events are replayed by `session/load`. */
  readonly session: { readonly id: string; readonly events: readonly SessionEvent[] }
  /** The tools the agent runs, whose own display titles their calls; absent: the built-in tools' displays. */
  readonly toolList?: readonly AnyTool[]
}

/** What `session/new` and `session/load` ask of the agent factory (`openAgent` in the CLI). */
export interface OpenAcpAgentOptions {
  cwd: string
  /** The session id to resume; absent for a new session. */
  resume?: string
  /** The MCP servers the client asked for, already parsed. */
  mcpServers?: McpServerConfig[]
  permissionMode?: PermissionMode
}

export type OpenAcpAgent = (options: OpenAcpAgentOptions) => Promise<AcpAgent>
