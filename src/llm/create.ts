import type { ModelAdapter, Wire } from './adapter.js'
import { AnthropicBodyEncoder } from './anthropic/body.js'
import { AnthropicDecoder } from './anthropic/events.js'
import { completeConfig, type HeaderSettings } from './body-settings.js'
import { ChatBodyEncoder } from './chat/body.js'
import { ChatDecoder } from './chat/events.js'
import { endpointFor } from './endpoints.js'
import { DEFAULT_IDLE_TIMEOUT_MS, streamHttp, type WireDecoder } from './transport.js'

export const DEFAULT_BASE_URL = 'https://api.deepseek.com'

export interface AdapterOptions extends HeaderSettings {
  wire: Wire
  /** Default: `DEEPSEEK_BASE_URL`, else DeepSeek's public API; read when the adapter is made. With or without `/v1`. */
  baseUrl?: string
  /** The Anthropic endpoint's own base (`DEEPSEEK_ANTHROPIC_BASE_URL`), e.g. `https://api.deepseek.com/anthropic`. */
  anthropicBaseUrl?: string
  /** Default: reads `DEEPSEEK_API_KEY` at every request, so a key set later is used. No key sends no credentials. */
  apiKey?: () => string | undefined
  /** Longest wait for any byte, in milliseconds. Default five minutes. */
  idleTimeoutMs?: number
}

/**
 * A DeepSeek adapter for one wire: `chat` is `POST {base}/chat/completions`, `anthropic` is
 * `POST {base}/anthropic/v1/messages`. Each `stream` call makes exactly one HTTP attempt; retrying is the loop's
 * policy (retry.ts).
 */
export function createAdapter(options: AdapterOptions): ModelAdapter {
  const base = options.baseUrl ?? process.env.DEEPSEEK_BASE_URL ?? DEFAULT_BASE_URL
  const anthropicBase = options.anthropicBaseUrl ?? (options.baseUrl === undefined ? process.env.DEEPSEEK_ANTHROPIC_BASE_URL : undefined)
  const apiKey = options.apiKey ?? (() => process.env.DEEPSEEK_API_KEY || undefined)
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS
  const settings: HeaderSettings = { maxOutputTokens: options.maxOutputTokens, models: options.models, userId: options.userId }
  const wire = options.wire

  const route =
    wire === 'anthropic'
      ? { url: endpointFor('anthropic', base, anthropicBase), decoder: (): WireDecoder => new AnthropicDecoder() }
      : { url: endpointFor('chat', base), decoder: (): WireDecoder => new ChatDecoder() }

  // One encoder per adapter: a session's next request re-encodes only its new messages (fold-cache.ts), and keeps the
  // body's bytes and digest between requests (body-bytes.ts).
  const encoder = wire === 'anthropic' ? new AnthropicBodyEncoder() : new ChatBodyEncoder()
  return {
    wire,
    headerConfig: (config) => completeConfig(config, settings, wire),
    body: (request) => encoder.body(request),
    encode: (request) => encoder.encode(request),
    stream(body, streamOptions = {}) {
      const key = apiKey()
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' }
      if (wire === 'anthropic') {
        headers['anthropic-version'] = '2023-06-01'
        if (key) headers['x-api-key'] = key
      } else if (key) {
        headers.authorization = `Bearer ${key}`
      }
      return streamHttp({ url: route.url, headers, body, hadKey: key !== undefined }, route.decoder(), {
        signal: streamOptions.signal,
        idleTimeoutMs,
      })
    },
  }
}
