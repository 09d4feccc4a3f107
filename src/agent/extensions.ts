import type { AssistantMessage, InputBlock } from '../llm/messages.js'
import type { JsonValue, SessionEvent, Source } from '../session/events.js'
import type { ToolFacts, ToolOutput } from '../tools/tool.js'

/** A message about to enter the session at a step boundary. `preStep` listeners may rewrite the list. */
export interface EnteringMessage {
  /** The inbox item's id when the message came from the inbox; new messages get a fresh id. */
  id?: string
  type: 'user/message' | 'context/message' | 'steering/message'
  content: InputBlock[]
  source: Source
  meta?: JsonValue
}

export interface StepInfo {
  turn: number
  step: number
}

export type PreStepDecision = { action: 'enter'; messages: EnteringMessage[] } | { action: 'reject'; reason: string }

/** A tool call as extension points see it: the raw arguments text and, when it parsed, the value. */
export interface ToolCallInfo {
  turn: number
  step: number
  callId: string
  name: string
  arguments: string
  input: unknown
  /** The called tool's own facts (category, read-only, peer names, target); absent when no tool has this name. */
  tool?: ToolFacts
}

export type PreToolDecision =
  | { action: 'allow'; reason?: string }
  | { action: 'deny'; reason: string }
  | { action: 'ask'; reason: string }
  /** Replace the arguments (raw JSON text). Re-validated against the tool's schema before the tool runs. */
  | { action: 'rewrite'; arguments: string; reason?: string }

export type PostToolDecision =
  | { action: 'accept' }
  | { action: 'replace'; content: InputBlock[] }
  /** The model sees `reason` beside the result. */
  | { action: 'block'; reason: string }

export interface PostToolOutcome {
  decision?: PostToolDecision
  /** Extra context to inject before the next request, each entry one `context/message`. */
  context?: { content: InputBlock[]; source: Source; meta?: JsonValue }[]
}

export type SessionStartSource = 'startup' | 'resume' | 'fork' | 'compact'

export interface TurnStoppingInfo {
  turn: number
  /** The last assistant message of the turn, if any. */
  lastAssistant: AssistantMessage | null
  /** How many times in a row a `turnStopping` listener has steered this turn. */
  continuations: number
}

/**
 * The hooks the core loop offers. Listeners are awaited in registration order. A listener that throws ends the turn
 * with reason `error` and a message naming it (`name`).
 */
export interface Extension<A = unknown> {
  name: string
  sessionStart?(agent: A, source: SessionStartSource): void | Promise<void>
  preStep?(step: StepInfo, entering: EnteringMessage[], agent: A): PreStepDecision | void | Promise<PreStepDecision | void>
  preTool?(call: ToolCallInfo, agent: A): PreToolDecision | void | Promise<PreToolDecision | void>
  postTool?(call: ToolCallInfo, result: ToolOutput, agent: A): PostToolOutcome | void | Promise<PostToolOutcome | void>
  /** May call `agent.steer(...)` to keep the turn going. */
  turnStopping?(info: TurnStoppingInfo, agent: A): void | Promise<void>
  event?(event: SessionEvent, agent: A): void
  /** Called when the agent closes (SessionEnd). */
  sessionEnd?(agent: A, reason: string): void | Promise<void>
}
