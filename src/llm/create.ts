import type { ModelAdapter, Wire } from './adapter.js'
import { anthropicBody } from './anthropic/body.js'
import { AnthropicDecoder } from './anthropic/events.js'
import type { BodySettings } from './body-settings.js'
import { chatBody } from './chat/body.js'
import { ChatDecoder } from './chat/events.js'
import { DEFAULT_IDLE_TIMEOUT_MS, streamHttp, type WireDecoder } from './transport.js'

export const DEFAULT_BASE_URL = 'https://api.deepseek.com'

export interface AdapterOptions extends BodySettings {
  wire: Wire
  /** Default: `DEEPSEEK_BASE_URL`, else DeepSeek's public API; read when the adapter is made. */
  baseUrl?: string
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
  const base = (options.baseUrl ?? process.env.DEEPSEEK_BASE_URL ?? DEFAULT_BASE_URL).replace(/\/+$/, '')
  const apiKey = options.apiKey ?? (() => process.env.DEEPSEEK_API_KEY || undefined)
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS
  const settings: BodySettings = { maxOutputTokens: options.maxOutputTokens, models: options.models }
  const wire = options.wire

  const route =
    wire === 'anthropic'
      ? { url: `${base}/anthropic/v1/messages`, decoder: (): WireDecoder => new AnthropicDecoder() }
      : { url: `${base}/chat/completions`, decoder: (): WireDecoder => new ChatDecoder() }

  return {
    wire,
    body: (request) => (wire === 'anthropic' ? anthropicBody(request, settings) : chatBody(request, settings)),
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
