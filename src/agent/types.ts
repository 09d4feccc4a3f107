import type { InputBlock } from '../llm/messages.js'
import type { SessionEvent, TurnEndReason } from '../session/events.js'
import type { CommandInput, CommandResult, ToolCallInfo } from './extensions.js'

/** The permission modes. Told to the model as context when they change, never in the system prompt. */
export type PermissionMode = 'default' | 'accept-edits' | 'plan' | 'bypass'
export const PERMISSION_MODES: readonly PermissionMode[] = ['default', 'accept-edits', 'plan', 'bypass']

/** What a front end is asked when a tool needs permission. */
export interface PermissionRequest {
  call: ToolCallInfo
  reason: string
  /** A rule that would allow calls like this one (`Bash(npm test)`), offered for "allow always". */
  suggestedRule?: string
  /** Set when a subagent asks (docs/subagents.md): its type, its job's description and its session id. */
  subagent?: { agent: string; description: string; session: string }
}

/** A front end's answer; `unanswered` is the loop's own, when no front end was attached to ask (the call is refused). */
export type PermissionAnswer =
  /** `arguments` (raw JSON text) replace the call's, re-validated before it runs; `by` names who changed them. */
  | { outcome: 'allow-once'; arguments?: string; by?: string }
  | { outcome: 'allow-always'; rule?: string }
  | { outcome: 'deny'; note?: string }
  | { outcome: 'unanswered' }

/**
 * The one seam through which a front end (terminal UI, ACP client, RPC client) is asked: it sets
 * `agent.permissionAsker`. With none attached, ask means deny. Extensions hear of each question and answer through
 * the `permissionAsked` / `permissionAnswered` points.
 */
export type PermissionAsker = (request: PermissionRequest, signal: AbortSignal) => Promise<PermissionAnswer>

/** Something a live listener sees: every committed event, plus streaming pieces that are never logged. */
export type LiveEvent =
  | { type: 'event'; event: SessionEvent }
  | { type: 'text-delta'; turn: number; step: number; text: string }
  | { type: 'reasoning-delta'; turn: number; step: number; text: string }
  | { type: 'tool-call-delta'; turn: number; step: number; index: number; id?: string; name?: string; argumentsDelta: string }
  | { type: 'tool-progress'; callId: string; text: string }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; message: string }
  | { type: 'idle' }

/** How a turn ended, as `whenIdle` reports it. */
export interface TurnOutcome {
  turn: number
  reason: TurnEndReason
  /** The one sentence a person reads when the reason is `error` or `blocked`. */
  message?: string
}

/** Content as callers pass it: a string is one text block. */
export type ContentInput = string | InputBlock[]

export function toBlocks(content: ContentInput): InputBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content
}

/**
 * The agent as front ends use it (extensions get the narrower `ExtensionContext`). The class in agent.ts implements
 * it; front ends get one from `openAgent` (src/runtime/open.ts), which wires the store, model adapter, tools,
 * permissions, context producers, hooks, compaction and MCP servers.
 */
export interface AgentApi {
  readonly session: import('../session/session.js').Session
  readonly cwd: string
  readonly config: import('../llm/adapter.js').ModelConfig
  readonly permissionMode: PermissionMode
  /** True from the moment a turn is scheduled until it has ended and the inbox is empty. */
  readonly busy: boolean
  /** Queue a prompt for its own turn; wakes an idle agent. Returns the message id. */
  followUp(content: ContentInput, source?: import('../session/events.js').Source): string
  /** Deliver at the next step boundary of the running turn (or open a turn when idle). */
  steer(content: ContentInput, source?: import('../session/events.js').Source): string
  /** Add context to the next request of any turn; does not wake an idle agent. */
  inject(
    content: ContentInput,
    source?: import('../session/events.js').Source,
    meta?: import('../session/events.js').JsonValue,
  ): string
  /** Stop the running turn (DESIGN section 3). Does nothing while idle. */
  cancel(): void
  /**
   * End the running turn as `blocked` with `message` shown to the user (a hook's `continue: false`): the turn stops as
   * a cancel stops it, but it was refused, not interrupted. Does nothing while idle.
   */
  stopTurn(message: string): void
  /** Resolves when no turn runs and the inbox is empty; with the outcome of the last turn, if any ran. */
  whenIdle(): Promise<TurnOutcome | undefined>
  subscribe(listener: (event: LiveEvent) => void): () => void
  setPermissionMode(mode: PermissionMode): void
  setModel(config: Partial<import('../llm/adapter.js').ModelConfig>): void
  /** The front end's permission prompt; undefined means ask is deny. */
  permissionAsker?: PermissionAsker
  /** Takes a queued input back before it is delivered (a front end editing it); logged as withdrawn. */
  withdraw(id: string): { id: string; content: InputBlock[] } | undefined
  /** Compacts the session now (`/compact [keep=N] [focus]`): the `compact` command. Only while idle. */
  compact(focus?: string, options?: { keep?: number }): Promise<{ outcome: string; message: string }>
  /**
   * Runs an extension's command while idle (the agent is busy meanwhile; `cancel` aborts it). Rejects while a turn
   * runs; says so in the result when no extension offers the command.
   */
  runCommand(name: string, input?: CommandInput): Promise<CommandResult>
  /** Shows a message to the user (never to the model). */
  notify(level: 'info' | 'warning' | 'error', message: string): void
  /** Flushes the log, runs sessionEnd listeners, releases tools and servers. */
  close(reason?: string): Promise<void>
}
