import type { Usage } from './messages.js'
import type { ModelError } from './errors.js'

export type FinishReason = 'stop' | 'tool-calls' | 'max-tokens' | 'error' | 'aborted'

/** One piece of a streamed response. Tool-call deltas are keyed by the call's index in the response. */
export type StreamChunk =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call-delta'; index: number; id?: string; name?: string; argumentsDelta: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: FinishReason; error?: ModelError }
