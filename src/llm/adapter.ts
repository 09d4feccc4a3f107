import type { Message, ToolSchema } from './messages.js'
import type { StreamChunk } from './stream.js'

/** How hard the model thinks. `off` disables thinking; the others map to DeepSeek's `reasoning_effort`. */
export type Effort = 'off' | 'low' | 'high' | 'max'

export type Wire = 'chat' | 'anthropic'

/** Model settings that belong to the request header. Plain JSON; part of the logged `request/header`. */
export interface ModelConfig {
  model: string
  effort: Effort
  /** Output cap sent with the request; absent means the catalog's default for the model. */
  maxOutputTokens?: number
}

/** Everything one request is made of. The agent builds it only from the session log. */
export interface ModelRequest {
  config: ModelConfig
  system: string
  tools: readonly ToolSchema[]
  messages: readonly Message[]
}

/**
 * One provider wire. `body` is pure: the same request gives the same bytes, so a request can be re-derived from the
 * log and its digest checked. `stream` makes exactly one HTTP attempt and never throws for a model failure: the
 * last chunk is always a `finish`, carrying a classified `ModelError` when the reason is `error`.
 */
export interface ModelAdapter {
  readonly wire: Wire
  body(request: ModelRequest): string
  stream(body: string, options?: { signal?: AbortSignal }): AsyncIterable<StreamChunk>
}
