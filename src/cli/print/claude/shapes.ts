import type { Uuid } from './ids.js'

/**
 * The lines of `--output-format stream-json`, in the shapes of Claude Code's headless mode (its Agent SDK's
 * `SDKMessage` types). Field names are Claude Code's, so they break this project's camelCase on purpose. Every line
 * carries `session_id` and `uuid`; `assistant`, `user` and `stream_event` lines also `parent_tool_use_id` (the `task`
 * call that runs a subagent's line, null on the parent's own). Rein's own additions sit
 * under one key, `rein`, which Claude Code consumers ignore.
 */

/** Token counts of one response, as the Anthropic Messages API reports them. `input_tokens` excludes cache reads. */
export interface MessageUsage {
  input_tokens: number
  cache_read_input_tokens: number
  cache_creation_input_tokens: number
  output_tokens: number
  cache_creation: null
  fallback_credit: null
  inference_geo: null
  iterations: null
  output_tokens_details: { thinking_tokens: number }
  server_tool_use: null
  service_tier: null
  speed: null
}

export type AssistantContent =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string; citations: null }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }

export type UserContent =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } }
  | { type: 'tool_result'; tool_use_id: string; content: ({ type: 'text'; text: string } | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } })[]; is_error: boolean }

/** The API's reasons a response stopped. */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens'

export interface AssistantBody {
  id: string
  type: 'message'
  role: 'assistant'
  model: string
  content: AssistantContent[]
  stop_reason: StopReason | null
  stop_sequence: null
  stop_details: null
  container: null
  context_management: null
  diagnostics: null
  usage: MessageUsage
}

interface LineBase {
  session_id: string
  uuid: Uuid
  /** The parent's `task` call id on a subagent's line; null on the session's own. */
  parent_tool_use_id: string | null
}

export interface AssistantLine extends LineBase {
  type: 'assistant'
  message: AssistantBody
}

export interface UserLine extends LineBase {
  type: 'user'
  message: { role: 'user'; content: UserContent[] }
  /** Set on content the harness or a producer added (context messages), not typed by a person or a client. */
  isSynthetic?: true
  /** On a line of tool results: the results that ran inside the sandbox, by `tool_use_id` (docs/headless.md). */
  rein?: { sandboxed: SandboxedResult[] }
}

/** One tool result that ran sandboxed: the sandbox's note when it stopped something, the hosts its proxy refused. */
export interface SandboxedResult {
  tool_use_id: string
  note?: string
  refused_hosts?: string[]
}

export interface InitLine extends Omit<LineBase, 'parent_tool_use_id'> {
  type: 'system'
  subtype: 'init'
  apiKeySource: 'none'
  claude_code_version: string
  cwd: string
  tools: string[]
  mcp_servers: { name: string; status: string; source?: string }[]
  model: string
  permissionMode: 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions'
  slash_commands: string[]
  output_style: string
  skills: string[]
  agents: string[]
  plugins: { name: string; path: string; version?: string }[]
  plugin_errors?: { plugin: string; type: string; message: string; path?: string }[]
  rein: { version: string; permission_mode: string }
}

/** One Anthropic streaming event; see partial.ts for the sequence. */
export type StreamEvent =
  | { type: 'message_start'; message: AssistantBody }
  | { type: 'content_block_start'; index: number; content_block: AssistantContent }
  | {
      type: 'content_block_delta'
      index: number
      delta:
        | { type: 'text_delta'; text: string }
        | { type: 'thinking_delta'; thinking: string; estimated_tokens: null }
        | { type: 'input_json_delta'; partial_json: string }
    }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta'
      delta: { stop_reason: StopReason | null; stop_sequence: null; container: null; stop_details: null }
      usage: {
        input_tokens: number
        cache_read_input_tokens: number
        cache_creation_input_tokens: number
        output_tokens: number
        fallback_credit: null
        iterations: null
        server_tool_use: null
        output_tokens_details: { thinking_tokens: number }
      }
      context_management: null
    }
  | { type: 'message_stop' }

export interface StreamEventLine extends LineBase {
  type: 'stream_event'
  event: StreamEvent
}

export interface ApiRetryLine extends Omit<LineBase, 'parent_tool_use_id'> {
  type: 'system'
  subtype: 'api_retry'
  /** Which retry this is (1 for the first). */
  attempt: number
  max_retries: number
  retry_delay_ms: number
  error_status: number | null
  error: 'authentication_failed' | 'billing_error' | 'rate_limit' | 'invalid_request' | 'server_error' | 'unknown'
}

export interface CompactBoundaryLine extends Omit<LineBase, 'parent_tool_use_id'> {
  type: 'system'
  subtype: 'compact_boundary'
  compact_metadata: { trigger: 'manual' | 'auto'; pre_tokens: number }
}

/** The lines the committed log projects to (besides init and result). */
export type MessageLine = AssistantLine | UserLine | ApiRetryLine | CompactBoundaryLine

export type ClaudeLine = InitLine | MessageLine | StreamEventLine | import('../result.js').ResultLine
