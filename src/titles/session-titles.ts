import type { Extension } from '../agent/extensions.js'
import type { ModelAdapter } from '../llm/adapter.js'
import { ResponseAssembler, type AssembledResponse } from '../llm/assemble.js'
import type { EventDataMap, EventType, LoggedError } from '../session/events.js'
import { titleFromAnswer } from './sanitize.js'
import { TITLE_MODEL, titleRequest, type TitleSource } from './title-request.js'
import { titleMoment, type TitleLogView } from './when.js'

/** How long a title request may take before it is stopped (ms): a title is a few words; a slow one is not worth waiting for. */
export const TITLE_TIMEOUT_MS = 30_000

/** The session as the title producer uses it: read the log, append to it, make it durable. `Session` is one. */
export interface TitleLog extends TitleLogView {
  append<T extends EventType>(type: T, data: EventDataMap[T], options?: { ignorable?: true }): unknown
  flush(): Promise<void>
}

export interface SessionTitlesOptions {
  session: TitleLog
  /** The session's adapter: one attempt per call, never retried here. */
  adapter: ModelAdapter
  timeoutMs?: number
}

/**
 * Model-made session titles (`"sessionTitles": "model"`, docs/configuration.md), as an extension the composition
 * root adds: the loop knows nothing of it. When the session's first turn has answered (`titleMoment`), it makes one
 * request to the cheapest model in the background and logs the outcome as exactly one event:
 * - `session/title` with `by: "model"`, the model and the usage, when the answer gave a title (`titleFromAnswer`);
 * - `title/failed` (ignorable) with one sentence, and the usage when the model reported it, when the request failed,
 *   timed out, gave nothing usable, or a rename landed while it ran. The first prompt goes on naming the session.
 * What always holds: at most one title request per session; a rename is never overwritten; nothing is awaited by the
 * loop, so the request never delays a turn; a failure never reaches the turn. Closing the agent aborts a request still
 * running and waits for it to stop; an aborted request logs nothing (its usage was never reported).
 */
export function sessionTitles(options: SessionTitlesOptions): Extension {
  const { session, adapter } = options
  const closing = new AbortController()
  let asked = false
  let running: Promise<void> | undefined

  return {
    name: 'session-titles',
    event(event, context) {
      if (asked || closing.signal.aborted || event.type !== 'turn/end') return
      if (event.data.reason !== 'completed') return
      // Decided once per opened session: the first completed turn seen here is either the session's first or not.
      asked = true
      const source = titleMoment(session, event)
      if (!source) return
      const userId = session.last('request/header')?.data.config.userId
      running = requestTitle(adapter, source, userId, closing.signal, options.timeoutMs ?? TITLE_TIMEOUT_MS).then((outcome) =>
        record(session, outcome, (message) => context.notify('warning', message)),
      )
    },
    async sessionEnd() {
      closing.abort()
      await running
    },
  }
}

/** What one title request came to: a title, or the sentence that says why there is none. Undefined: aborted by close. */
type TitleOutcome = { title: string; usage?: AssembledResponse['usage'] } | { error: LoggedError; usage?: AssembledResponse['usage'] } | undefined

async function requestTitle(
  adapter: ModelAdapter,
  source: TitleSource,
  userId: string | undefined,
  closing: AbortSignal,
  timeoutMs: number,
): Promise<TitleOutcome> {
  const timeout = AbortSignal.timeout(timeoutMs)
  const assembler = new ResponseAssembler()
  try {
    const body = adapter.body(titleRequest(adapter, source, userId))
    for await (const chunk of adapter.stream(body, { signal: AbortSignal.any([closing, timeout]) })) assembler.push(chunk)
  } catch (error) {
    // An adapter reports model failures as a finish chunk; anything thrown is a fault of this request alone.
    return failed('invalid-request', `The title request could not be made (${error instanceof Error ? error.message : String(error)}); the first prompt names the session.`)
  }
  if (closing.aborted) return undefined
  const result = assembler.result()
  const usage = result.usage
  if (timeout.aborted || result.finish === 'aborted') {
    return failed('timeout', `The title request took over ${Math.round(timeoutMs / 1000)} s and was stopped; the first prompt names the session.`, usage)
  }
  if (result.finish === 'error') {
    const error = result.error
    return failed(error?.code ?? 'server', `The title request failed, so the first prompt names the session: ${error?.message ?? 'the model gave no answer.'}`, usage)
  }
  const text = result.message.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
  const title = titleFromAnswer(text)
  if (!title) return failed('empty-title', 'The model answered the title request with no usable title; the first prompt names the session.', usage)
  return { title, ...(usage ? { usage } : {}) }
}

function failed(code: string, message: string, usage?: AssembledResponse['usage']): TitleOutcome {
  return { error: { code, message }, ...(usage ? { usage } : {}) }
}

/**
 * Logs the outcome as one event and makes it durable, so listings (which read the store) show the title at once.
 * A rename that landed while the request ran wins: the model's title is then logged as `title/failed`.
 */
async function record(session: TitleLog, outcome: TitleOutcome, warn: (message: string) => void): Promise<void> {
  if (!outcome) return
  const usage = outcome.usage ? { usage: outcome.usage } : {}
  try {
    if ('title' in outcome && !session.last('session/title')) {
      session.append('session/title', { title: outcome.title, by: 'model', model: TITLE_MODEL, ...usage })
    } else {
      const error: LoggedError =
        'error' in outcome ? outcome.error : { code: 'renamed', message: 'The session was renamed while its title was being made; the rename stays.' }
      session.append('title/failed', { model: TITLE_MODEL, error, ...usage }, { ignorable: true })
    }
    await session.flush()
  } catch (error) {
    // The session closed or its log failed: the agent reports a failed log itself; this only says the title is lost.
    warn(`The session title was not saved: ${error instanceof Error ? error.message : String(error)}`)
  }
}
