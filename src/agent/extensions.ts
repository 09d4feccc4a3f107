import type { ModelError } from '../llm/errors.js'
import type { AssistantMessage, InputBlock } from '../llm/messages.js'
import type { EventDataMap, EventType, JsonValue, SessionEvent, Source, SurfaceEvent } from '../session/events.js'
import type { ToolFacts, ToolOutput } from '../tools/tool.js'
import type { ContentInput, PermissionAnswer, PermissionMode, PermissionRequest } from './types.js'

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
  /** Ask the user. `suggestedRule` is a rule that would allow calls like this one, offered as "allow always". */
  | { action: 'ask'; reason: string; suggestedRule?: string }
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

/** `compact`: the surface was replaced (a summary took the place of older entries), and the session goes on from it. */
export type SessionStartSource = 'startup' | 'resume' | 'fork' | 'compact'

export interface TurnStoppingInfo {
  turn: number
  /** The last assistant message of the turn, if any. */
  lastAssistant: AssistantMessage | null
  /** How many times in a row a `turnStopping` listener has steered this turn. */
  continuations: number
}

/** A request is about to be sent; `promptTokens` estimates its size (body bytes / 4). */
export interface BeforeRequestInfo {
  turn: number
  step: number
  promptTokens: number
  /** Aborted when the turn is cancelled; work a listener starts here should stop with it. */
  signal: AbortSignal
}

/** A request failed. `attempt` counts the failures of this step's request, from 1. */
export interface RequestFailedInfo {
  turn: number
  step: number
  error: ModelError
  attempt: number
  signal: AbortSignal
}

/** The session as an extension reads it; nothing here appends. */
export interface SessionView {
  readonly id: string
  /** The file that holds the log, when the store keeps files (hooks hand it on as `transcript_path`). */
  readonly path: string | undefined
  /** The surface as it stands: what the next request projects, oldest first. A read-only view. */
  surface(): readonly SurfaceEvent[]
  /** The latest event of a type, if any. */
  last<T extends EventType>(type: T): SessionEvent<T> | undefined
}

/**
 * What an extension point receives instead of the agent: enough to read where it runs and to add input, never to
 * drive the loop. Every method may be called at any time; `inject` and `steer` queue through the inbox like a front
 * end's input, so what an extension adds reaches the model only through the log.
 */
export interface ExtensionContext {
  readonly cwd: string
  /** The session, read-only: its id, where it lives, and the surface. */
  readonly session: SessionView
  /** The model id the next request uses. */
  readonly model: string
  readonly permissionMode: PermissionMode
  /** Adds context to the next request of any turn; does not wake an idle agent. Returns the message id. */
  inject(content: ContentInput, source?: Source, meta?: JsonValue): string
  /** Delivers at the next step boundary of the running turn (or opens a turn when idle). Returns the message id. */
  steer(content: ContentInput, source?: Source): string
  /** Shows a message to the user (never to the model). */
  notify(level: 'info' | 'warning' | 'error', message: string): void
  /** Ends the running turn as `blocked` with `message` shown to the user. Does nothing while idle. */
  stopTurn(message: string): void
  /** Switches the permission mode (an approved plan leaves plan mode); front ends see the change. */
  setPermissionMode(mode: PermissionMode): void
  /** Switches the model for the next request (a custom command's `model`). */
  setModel(model: string): void
  /**
   * Puts a question to the user through the front end's permission prompt (a plan to approve, a command a custom
   * slash command would run); undefined when no front end can ask.
   */
  ask(request: PermissionRequest): Promise<PermissionAnswer | undefined>
  /**
   * Logs an audit event an extension owns (`hook/invoked`, `hook/result`). Surface types are refused: model input
   * enters only through `inject`, `steer` and the step's entering messages.
   */
  record<T extends EventType>(type: T, data: EventDataMap[T]): void
}

/** What a command reports: a short outcome word and one sentence for the user. */
export interface CommandResult {
  outcome: string
  message: string
  /** What the command produced for the front end to act on (the fork a rewind made), in the command's own shape. */
  data?: JsonValue
}

/**
 * A command a front end runs through the agent while no turn runs (`/compact`). `cancel` aborts `signal`. When the
 * command replaced part of the surface, `sessionStart` listeners run with source `compact` afterwards.
 */
export type ExtensionCommand = (input: CommandInput, signal: AbortSignal, context: ExtensionContext) => Promise<CommandResult>

/** A command's arguments as front ends pass them: free text (a focus), an optional count, or structured arguments. */
export interface CommandInput {
  text?: string
  keep?: number
  /** Structured arguments a command defines for itself (a rewind's turn and what to restore). */
  args?: { readonly [key: string]: JsonValue }
}

/**
 * The hooks the core loop offers (DESIGN section 5), each given an `ExtensionContext`. Listeners are awaited in
 * registration order. A listener that throws ends the turn with reason `error` and a message naming it (`name`),
 * except `event`, `permissionAsked`, `permissionAnswered` and `sessionEnd`, whose failures are reported as notices.
 */
export interface Extension {
  name: string
  /** Commands this extension offers front ends, by name (`agent.runCommand`). */
  commands?: Record<string, ExtensionCommand>
  sessionStart?(context: ExtensionContext, source: SessionStartSource): void | Promise<void>
  preStep?(step: StepInfo, entering: EnteringMessage[], context: ExtensionContext): PreStepDecision | void | Promise<PreStepDecision | void>
  /**
   * Runs after the step's messages entered and before the request is logged as sent. A listener may change the
   * surface (replace old entries); when it did, the loop runs `preStep` once more (with the context injected
   * meanwhile) and re-derives the request.
   */
  beforeRequest?(info: BeforeRequestInfo, context: ExtensionContext): void | Promise<void>
  /**
   * The request failed. `'retry'` re-derives the request from the log and sends it again at once (after a changed
   * surface, `preStep` runs once more first); otherwise the loop's own retry policy decides.
   */
  requestFailed?(info: RequestFailedInfo, context: ExtensionContext): 'retry' | void | Promise<'retry' | void>
  preTool?(call: ToolCallInfo, context: ExtensionContext): PreToolDecision | void | Promise<PreToolDecision | void>
  /**
   * A call needs a person's approval: a listener may answer in their place (PermissionRequest hooks). The first
   * answer wins and nobody is asked; with none, the front end is asked as usual.
   */
  answerPermission?(request: PermissionRequest, context: ExtensionContext): PermissionAnswer | void | Promise<PermissionAnswer | void>
  /** A front end is about to be asked to approve a call (Notification hooks). */
  permissionAsked?(request: PermissionRequest, context: ExtensionContext): void | Promise<void>
  /**
   * A permission question was answered: by the front end, or `unanswered` when none was attached (the call is
   * refused). The permission policy records "allow always" rules here.
   */
  permissionAnswered?(request: PermissionRequest, answer: PermissionAnswer, context: ExtensionContext): void | Promise<void>
  postTool?(call: ToolCallInfo, result: ToolOutput, context: ExtensionContext): PostToolOutcome | void | Promise<PostToolOutcome | void>
  /** May call `context.steer(...)` to keep the turn going. */
  turnStopping?(info: TurnStoppingInfo, context: ExtensionContext): void | Promise<void>
  event?(event: SessionEvent, context: ExtensionContext): void
  /** Called when the agent closes (SessionEnd). */
  sessionEnd?(context: ExtensionContext, reason: string): void | Promise<void>
}
