import type { BodyBytes, RequestBody } from './body-bytes.js'
import type { Message, ToolSchema } from './messages.js'
import type { StreamChunk } from './stream.js'

/** How hard the model thinks. `off` disables thinking; the others map to DeepSeek's `reasoning_effort`. */
export type Effort = 'off' | 'low' | 'high' | 'max'

export type Wire = 'chat' | 'anthropic'

/** Model settings that belong to the request header. Plain JSON; part of the logged `request/header`. */
export interface ModelConfig {
  model: string
  effort: Effort
  /**
   * The most output tokens a request may ask for: the smaller of the model's maximum and the user's cap. The body
   * sends less when the prompt leaves less room in `contextWindow` (output-cap.ts). Absent for a model the catalog
   * does not describe on the chat wire (the cap is then left out), and in logs written before Rein recorded it (the
   * body then falls back to the built-in catalog, never to settings).
   */
  maxOutputTokens?: number
  /** The model's context window in tokens, as the catalog (or the user's override) gave it when the header was logged. */
  contextWindow?: number
  /** Whether the model takes images; absent (logs from before Rein recorded it) means the built-in catalog decides. */
  images?: boolean
  /**
   * `every-assistant`: reasoning is sent with every assistant message (`""` when it had none), not only with those
   * that carry tool calls. Set once when DeepSeek refused a request for missing reasoning (the passback repair).
   */
  passback?: 'every-assistant'
  /**
   * DeepSeek's `user_id` (user-id.ts): whom the request is for. Set per agent (a fleet's task or tenant), else filled
   * from `userId` in settings, else a stable per-user hash, when the header is made. Absent in logs from before Rein
   * sent it (the body then sends none).
   */
  userId?: string
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
  /**
   * `body` as the bytes to send and their digest, when the adapter can keep the bytes of a session's unchanged prefix
   * between requests (body-bytes.ts): then a request costs O(new messages) to encode and hash, not O(body). The
   * bytes are exactly `body`'s. Without it, the caller encodes `body` whole.
   */
  encode?(request: ModelRequest): BodyBytes
  /**
   * The config as the request header logs it: the model's window, output ceiling and image support filled in from
   * the catalog and the user's overrides, so a body depends on the log alone. Optional for test adapters.
   */
  headerConfig?(config: ModelConfig): ModelConfig
  stream(body: RequestBody, options?: { signal?: AbortSignal }): AsyncIterable<StreamChunk>
}
