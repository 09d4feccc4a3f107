import type { InputBlock } from '../llm/messages.js'
import type { SessionEvent, TurnEndReason } from '../session/events.js'
import type { ToolCallInfo } from './extensions.js'

/** The permission modes. Told to the model as context when they change, never in the system prompt. */
export type PermissionMode = 'default' | 'accept-edits' | 'plan' | 'bypass'
export const PERMISSION_MODES: readonly PermissionMode[] = ['default', 'accept-edits', 'plan', 'bypass']

/** What a front end is asked when a tool needs permission. */
export interface PermissionRequest {
  call: ToolCallInfo
  reason: string
  /** A rule that would allow calls like this one (`Bash(npm test)`), offered for "allow always". */
  suggestedRule?: string
}

export type PermissionAnswer =
  | { outcome: 'allow-once' }
  | { outcome: 'allow-always'; rule?: string }
  | { outcome: 'deny'; note?: string }

/** Attached by a front end (terminal UI, ACP client, RPC client). With none attached, ask means deny. */
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
