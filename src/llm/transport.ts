import { createParser, type EventSourceMessage } from 'eventsource-parser'
import type { RequestBody } from './body-bytes.js'
import { classifyHttpError } from './classify.js'
import { modelError } from './describe.js'
import { ModelError } from './errors.js'
import { postRequest, type OpenResponse } from './http.js'
import type { Usage } from './messages.js'
import type { FinishReason, StreamChunk } from './stream.js'

/** Five minutes without a byte, as DESIGN section 6 and the issue ask. */
export const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60_000

/**
 * One wire's reading of server-sent events. `decode` turns one event into chunks (never `usage` or `finish`: the
 * transport emits those once, at the end) and throws a ModelError for an error event or data it cannot read.
 */
export interface WireDecoder {
  decode(event: EventSourceMessage): StreamChunk[]
  /** True once the wire's end marker (`[DONE]`, `message_stop`) has arrived. */
  readonly done: boolean
  /** The provider's finish reason, meaningful once `done`. */
  readonly reason: Exclude<FinishReason, 'error' | 'aborted'>
  readonly usage?: Usage
}

/** One HTTP request, fully prepared by an adapter. */
export interface HttpCall {
  url: string
  headers: Record<string, string>
  /** The body, as one string or as byte chunks sent in order (body-bytes.ts). */
  body: RequestBody
  /** Whether `headers` carry an API key: a 401 then reads "rejected" rather than "missing". */
  hadKey: boolean
}

export interface TransportOptions {
  signal?: AbortSignal
  /** Longest wait for any byte (headers or body), in milliseconds. */
  idleTimeoutMs: number
}

/**
 * Makes exactly one HTTP attempt and yields the decoded chunks, ending with one `usage` chunk (when the provider
 * reported usage) and always one `finish`. It never throws for a model failure: transport faults, HTTP errors,
 * error events, a stream that ends before its end marker (`stream closed`), an idle timeout and a cancel all become
 * a `finish` with reason `error` or `aborted` and a classified ModelError. A `stop` that produced no content at all is
 * an `empty-response` error. The idle clock runs only while waiting on the network, never while the consumer holds a
 * chunk.
 */
export async function* streamHttp(call: HttpCall, decoder: WireDecoder, options: TransportOptions): AsyncGenerator<StreamChunk> {
  const { signal, idleTimeoutMs } = options
  if (signal?.aborted) {
    yield failed(modelError('aborted'))
    return
  }
  const controller = new AbortController()
  let timedOut = false
  let timer: NodeJS.Timeout | undefined
  const arm = (): void => {
    clearTimeout(timer)
    timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, idleTimeoutMs)
  }
  const disarm = (): void => clearTimeout(timer)
  const onAbort = (): void => controller.abort()
  signal?.addEventListener('abort', onAbort, { once: true })
  /** Why a network wait failed: the caller's cancel and our own timeout abort the same controller. */
  const networkFailure = (cause: unknown, beforeResponse: boolean): ModelError => {
    if (signal?.aborted) return modelError('aborted')
    if (timedOut) return modelError('timeout', { idleTimeoutMs })
    const detail = describeCause(cause)
    return beforeResponse ? modelError('transport', { url: call.url, detail }) : modelError('transport', { detail })
  }

  let response: OpenResponse | undefined
  let clean = false
  try {
    try {
      arm()
      response = await postRequest(call.url, call.headers, call.body, controller.signal)
    } catch (cause) {
      yield failed(networkFailure(cause, true))
      return
    } finally {
      disarm()
    }

    if (response.status < 200 || response.status >= 300) {
      let text: string
      try {
        arm()
        text = await response.text()
      } catch (cause) {
        yield failed(networkFailure(cause, false))
        return
      } finally {
        disarm()
      }
      clean = true
      yield failed(classifyHttpError(response.status, text, response.headers, { hadKey: call.hadKey, url: call.url }))
      return
    }

    const pending: EventSourceMessage[] = []
    const parser = createParser({ onEvent: (event) => pending.push(event) })
    let sawContent = false
    while (!decoder.done) {
      let text: string | null
      try {
        arm()
        text = await response.read()
      } catch (cause) {
        yield failed(networkFailure(cause, false))
        return
      } finally {
        disarm()
      }
      if (text === null) break
      parser.feed(text)
      for (const event of pending.splice(0)) {
        let chunks: StreamChunk[]
        try {
          chunks = decoder.decode(event)
        } catch (error) {
          if (!(error instanceof ModelError)) throw error
          yield failed(error)
          return
        }
        for (const chunk of chunks) {
          if (hasContent(chunk)) sawContent = true
          yield chunk
          if (signal?.aborted) {
            yield failed(modelError('aborted'))
            return
          }
        }
        if (decoder.done) break
      }
    }
    if (!decoder.done) {
      yield failed(modelError('transport', { detail: 'stream closed before its end marker' }))
      return
    }
    clean = true
    if (decoder.usage) yield { type: 'usage', usage: decoder.usage }
    if (decoder.reason === 'stop' && !sawContent) {
      yield failed(modelError('empty-response', { detail: 'finish "stop" with no text, reasoning or tool call' }))
      return
    }
    yield { type: 'finish', reason: decoder.reason }
  } finally {
    disarm()
    signal?.removeEventListener('abort', onAbort)
    // A stream left before its end (cancel, error, consumer stopped) must not keep its socket.
    if (clean) response?.release()
    else {
      response?.destroy()
      controller.abort()
    }
  }
}

function failed(error: ModelError): StreamChunk {
  return { type: 'finish', reason: error.code === 'aborted' ? 'aborted' : 'error', error }
}

function hasContent(chunk: StreamChunk): boolean {
  if (chunk.type === 'text-delta' || chunk.type === 'reasoning-delta') return chunk.text.length > 0
  return chunk.type === 'tool-call-delta'
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as Error & { cause?: unknown }).cause
    return inner instanceof Error ? `${cause.message}: ${inner.message}` : cause.message
  }
  return String(cause)
}
