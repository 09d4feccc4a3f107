import type { ModelAdapter, ModelConfig } from '../llm/adapter.js'
import type { ToolSchema } from '../llm/messages.js'
import type { SessionEvent } from '../session/events.js'
import type { Session } from '../session/session.js'
import type { AnyTool, ToolState } from '../tools/tool.js'
import type { Extension, SessionStartSource, ToolCallInfo } from './extensions.js'
import type { PermissionMode } from './types.js'

/** What an agent is made of; the composition root (src/runtime/open.ts) fills it for a user's session. */
export interface AgentOptions {
  session: Session
  adapter: ModelAdapter
  tools: AnyTool[]
  /** The model-facing schemas of `tools`, sorted and stable (src/tools/registry.ts). */
  schemas: (tools: readonly AnyTool[]) => ToolSchema[]
  system: string
  config: ModelConfig
  toolState: ToolState
  permissionMode?: PermissionMode
  extensions?: Extension[]
  /** How this agent came to the session: decides the first header's reason and the sessionStart source. */
  start?: SessionStartSource
  /** A cap on steps per turn (`--max-turns`); the turn ends `max-steps` when reached. */
  maxSteps?: number
  /** A count of model requests this agent shares with others (its subagents); the turn ends `max-steps` when it refuses a step. */
  stepBudget?: StepBudget
  /** A spend cap for this run (budget.ts); the turn ends `max-steps` with error code `budget` when it is reached. */
  budget?: { exceeded(events: readonly SessionEvent[]): string | undefined }
  toolConcurrency?: number
  /** The sentence the model reads when a call needs permission and no front end is attached to ask. */
  permissionNeeded?: (call: ToolCallInfo, reason?: string) => string
  /** Injectable for tests: how retry waits are slept and jitter drawn. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
  random?: () => number
  /** Released when the agent closes (background jobs, MCP servers). */
  onClose?: () => Promise<void>
}

/**
 * Model requests shared by an agent tree (`--max-turns` over a parent and its subagents). `take` is asked before each
 * step of a turn (`step` counts from 1 within the turn); false ends the turn `max-steps` before the request.
 */
export interface StepBudget {
  take(step: number): boolean
}
