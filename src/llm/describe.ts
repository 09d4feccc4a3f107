import { ModelError, type ModelErrorCode } from './errors.js'

/** What is known about a failure when its sentence is written. */
export interface FailureFacts {
  status?: number
  /** The provider's own message, if it sent one; quoted in sentences where it helps the user act. */
  serverMessage?: string
  retryAfterMs?: number
  requestId?: string
  /** The cause for logs (a network error's text, a malformed event). Never shown as the sentence. */
  detail?: string
  /** Whether an API key was sent; a 401 without one means the key is missing rather than wrong. */
  hadKey?: boolean
  /** The idle period that ran out, for `timeout`. */
  idleTimeoutMs?: number
  /** The endpoint, for transport errors and a 404. */
  url?: string
}

/** A ModelError whose message is the one sentence a person reads; the facts stay on it for logs. */
export function modelError(code: ModelErrorCode, facts: FailureFacts = {}): ModelError {
  return new ModelError(code, sentenceFor(code, facts), {
    status: facts.status,
    retryAfterMs: facts.retryAfterMs,
    requestId: facts.requestId,
    detail: facts.detail ?? facts.serverMessage,
  })
}

function sentenceFor(code: ModelErrorCode, facts: FailureFacts): string {
  const status = facts.status === undefined ? '' : ` (${facts.status})`
  switch (code) {
    case 'auth':
      if (facts.hadKey === false) return `No DeepSeek API key was sent${status}. Set DEEPSEEK_API_KEY.`
      return `DeepSeek rejected the API key${status}. Check DEEPSEEK_API_KEY.`
    case 'quota':
      return `Your DeepSeek balance is used up${status}. Top up your DeepSeek account, then try again.`
    case 'rate-limit':
      return `DeepSeek is rate-limiting this key${status}; wait a moment and try again.`
    case 'context-too-long':
      return `The conversation is longer than the model's context window${status}; compact it or start a new session.`
    case 'invalid-request':
      if (facts.status === 404) return `DeepSeek has no endpoint at ${facts.url ?? 'this address'} (404). Check DEEPSEEK_BASE_URL.`
      return `DeepSeek refused the request as invalid${status}${quote(facts.serverMessage)}. Check the model name and settings.`
    case 'reasoning-passback':
      return `DeepSeek refused the request because an earlier answer's reasoning was not passed back${status}; this is a bug in Rein, please report it with the session id.`
    case 'server':
      if (facts.status === 503) return 'DeepSeek is overloaded (503); try again in a moment.'
      return `DeepSeek had a server error${status}${quote(facts.serverMessage)}; try again in a moment.`
    case 'transport':
      if (facts.url) return `Could not reach DeepSeek at ${facts.url}; check the network and DEEPSEEK_BASE_URL.`
      return 'The connection to DeepSeek closed before the answer was complete; try again.'
    case 'timeout': {
      const seconds = Math.round((facts.idleTimeoutMs ?? 0) / 1000)
      return `DeepSeek sent nothing for ${seconds} s, so the request was stopped; try again.`
    }
    case 'empty-response':
      return 'DeepSeek returned an empty answer; try again.'
    case 'aborted':
      return 'The request to DeepSeek was cancelled.'
  }
}

/** `: "message"` for a provider message worth showing, trimmed to one short line. */
function quote(message: string | undefined): string {
  if (!message) return ''
  const line = message.replace(/\s+/g, ' ').trim().replace(/[.;:]+$/, '')
  if (!line) return ''
  return `: "${line.length > 200 ? `${line.slice(0, 197)}...` : line}"`
}
