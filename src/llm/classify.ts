import type { ModelError, ModelErrorCode } from './errors.js'
import { modelError, type FailureFacts } from './describe.js'

/** Response headers that carry the provider's request id, in the order they are tried. */
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-ds-trace-id', 'trace-id']

const CONTEXT_WORDS = /context (length|window)|maximum context|too many tokens|prompt is too long|input is too long/i
/**
 * DeepSeek's 400 for an assistant message sent without its reasoning in thinking mode: "The `reasoning_content` in the
 * thinking mode must be passed back to the API." (chat) or "The `content[].thinking` …" (Anthropic).
 */
const PASSBACK_WORDS = /(reasoning_content|content\[\]\.thinking)`? in the thinking mode must be passed back/i
const BALANCE_WORDS = /insufficient (balance|quota)|balance is insufficient|out of balance/i

/** Facts both classifiers share: which key state and endpoint the request had. */
export interface RequestFacts {
  hadKey: boolean
  url: string
}

/** Classifies a non-2xx HTTP answer from its status, body text and headers (DESIGN section 6). */
export function classifyHttpError(status: number, bodyText: string, headers: Headers, request: RequestFacts): ModelError {
  const serverMessage = providerMessage(bodyText)
  const facts: FailureFacts = {
    status,
    serverMessage,
    retryAfterMs: parseRetryAfter(headers),
    requestId: requestIdOf(headers),
    hadKey: request.hadKey,
    url: request.url,
    detail: bodyText.slice(0, 2000) || undefined,
  }
  return modelError(codeForStatus(status, serverMessage ?? bodyText), facts)
}

function codeForStatus(status: number, text: string): ModelErrorCode {
  if (BALANCE_WORDS.test(text) || status === 402) return 'quota'
  if (status === 401 || status === 403) return 'auth'
  if (status === 400 && PASSBACK_WORDS.test(text)) return 'reasoning-passback'
  if (status === 429) return 'rate-limit'
  if (status === 413 || ((status === 400 || status === 422) && CONTEXT_WORDS.test(text))) return 'context-too-long'
  if (status === 408) return 'timeout'
  if (status >= 500) return 'server'
  return 'invalid-request'
}

/**
 * Classifies an error reported inside a 200 stream (a chat-wire `{"error":…}` chunk or an Anthropic `error` event),
 * from the provider's error type and message; an unknown type is a server error.
 */
export function classifyStreamError(type: string | undefined, message: string | undefined, requestId?: string): ModelError {
  const text = `${type ?? ''} ${message ?? ''}`
  let code: ModelErrorCode = 'server'
  if (BALANCE_WORDS.test(text)) code = 'quota'
  else if (/rate.?limit/i.test(text)) code = 'rate-limit'
  else if (/authentication|permission|api key/i.test(text)) code = 'auth'
  else if (CONTEXT_WORDS.test(text)) code = 'context-too-long'
  else if (/invalid_request|not_found/i.test(text)) code = 'invalid-request'
  return modelError(code, { serverMessage: message, requestId, detail: text.trim() })
}

/** The provider's message from an OpenAI-style `{error:{message}}` or Anthropic-style `{type:'error',error:{message}}` body. */
export function providerMessage(bodyText: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(bodyText)
    if (parsed && typeof parsed === 'object') {
      const error = (parsed as { error?: unknown }).error
      if (typeof error === 'string') return error
      if (error && typeof error === 'object') {
        const message = (error as { message?: unknown }).message
        if (typeof message === 'string') return message
      }
      const message = (parsed as { message?: unknown }).message
      if (typeof message === 'string') return message
    }
  } catch {
    // Not JSON: the raw text below is the best message there is.
  }
  const text = bodyText.trim()
  return text && text.length <= 300 ? text : undefined
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; `retry-after-ms` wins when present. */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms))
  const value = headers.get('retry-after')
  if (value === null) return undefined
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

export function requestIdOf(headers: Headers): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headers.get(name)
    if (value) return value
  }
  return undefined
}
