import type { InspectedStep, SessionRow, ShownQuestion, ShownState, ShownToolEvent, StepFigures } from '../../src/web/api-types.js'

// The listing, figure and inspector shapes come from the server's own definitions (type imports only, erased by the
// build); the shapes below restate only what the page reads of the log's events (docs/session-log.md is the reference).
export type { InspectedStep, SessionRow, ShownQuestion, ShownState, ShownToolEvent, StepFigures }

export type Block =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'image'; mimeType: string; data: string }
  | { type: 'tool-call'; id: string; name: string; arguments: string }

export interface LogEvent {
  seq: number
  time: number
  type: string
  // Event data differ by type; transcript.ts narrows each type it reads.
  data: Record<string, unknown>
  surfaceOp?: unknown
  /** On tool calls and results: the tool's own display, added by the server. */
  shown?: ShownToolEvent
}

export interface Usage {
  inputUncached: number
  inputCacheRead: number
  output: number
  reasoning: number
}

export interface ToolCallInfo {
  id: string
  name: string
  arguments: string
}

export interface PermissionRequest {
  call: { name: string; callId: string; arguments: string; input: unknown }
  reason: string
  suggestedRule?: string
  /** The question as every surface asks it, added by the server. */
  question?: ShownQuestion
}

export interface LiveState {
  hosted: boolean
  busy?: boolean
  model?: string
  effort?: string
  permissionMode?: string
  queued?: { id: string; verb: string; text: string }[]
  asks?: { id: string; request: PermissionRequest }[]
  problems?: string[]
  state?: 'running' | 'idle' | 'interrupted'
}

export interface Info {
  root: string
  all: boolean
  models: string[]
  efforts: string[]
  modes: string[]
}

/** One Server-Sent Event of a session's stream. */
export type StreamMessage =
  | { kind: 'live'; live: LiveEvent }
  | { kind: 'state'; state: LiveState }
  | { kind: 'logged-state'; state: LiveState }
  | { kind: 'ask'; id: string; request: PermissionRequest }
  | { kind: 'ask-settled'; id: string }

export type LiveEvent =
  | { type: 'event'; event: LogEvent }
  | { type: 'text-delta'; turn: number; step: number; text: string }
  | { type: 'reasoning-delta'; turn: number; step: number; text: string }
  | { type: 'tool-call-delta'; turn: number; step: number; index: number; id?: string; name?: string; argumentsDelta: string }
  | { type: 'tool-progress'; callId: string; text: string }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; message: string }
  | { type: 'idle' }
