import { ResponseAssembler } from '../llm/assemble.js'
import type { ModelAdapter } from '../llm/adapter.js'
import type { RequestBody } from '../llm/body-bytes.js'
import { ModelError } from '../llm/errors.js'
import type { AssistantMessage } from '../llm/messages.js'
import { retryDelay } from '../llm/retry.js'
import type { FinishReason } from '../llm/stream.js'
import type { LoggedError } from '../session/events.js'
import type { Session } from '../session/session.js'
import type { LiveEvent } from './types.js'

/** How one step's request ended: an answer, or a reason the turn must end. */
export type Sent =
  | { kind: 'answer'; message: AssistantMessage; finish: FinishReason }
  | { kind: 'aborted' }
  | { kind: 'failed'; error: LoggedError }

/** An encoded request: the exact body and what `request/sent` records of it. */
export interface Encoded {
  /** The body as one string, or as byte chunks that are sent in order and never joined (body-bytes.ts). */
  body: RequestBody
  sha256: string
  bytes: number
}

/** What a failure turns into before the loop's own retry policy: a body to send at once, or nothing. */
export type Recover = (error: ModelError, attempt: number) => Promise<Encoded | null>

export interface SendOptions {
  session: Session
  adapter: ModelAdapter
  turn: number
  step: number
  signal: AbortSignal
  emit: (event: LiveEvent) => void
  notify: (level: 'warning', message: string) => void
  /** The extension points' answer to a failure (`requestFailed`): a body to send at once, or null. */
  recover: Recover
  /** DeepSeek asked for reasoning to be passed back: switch it on for every assistant message and re-derive. */
  repairPassback: () => Encoded
  sleep: (ms: number, signal: AbortSignal) => Promise<void>
  random?: () => number
}

/**
 * Sends one step's request and logs its answer: `request/sent` (after a flush), the stream, `assistant/message`.
 * A failure is first offered to `recover`, whose body is sent at once (with its own `request/sent`); then a
 * reasoning-passback refusal is repaired once (`repairPassback`); otherwise the retry policy of src/llm/retry.ts waits and re-sends the same body, logging each `llm/retry`. A cancelled stream
 * keeps what the user already saw as an interrupted message without tool calls.
 */
export async function sendRequest(first: Encoded, o: SendOptions): Promise<Sent> {
  let encoded = first
  let sent = false
  let passbackRepaired = false
  for (let failures = 0; ; ) {
    if (!sent) {
      await o.session.flush()
      o.session.append('request/sent', { turn: o.turn, step: o.step, sha256: encoded.sha256, bytes: encoded.bytes })
      sent = true
    }
    const result = await stream(encoded.body, o)
    if (result.finish === 'aborted' || o.signal.aborted) {
      const kept = result.message.content.filter((b) => b.type !== 'tool-call')
      if (kept.length) {
        o.session.append('assistant/message', {
          turn: o.turn,
          step: o.step,
          message: { role: 'assistant', content: kept },
          interrupted: true,
          ...(result.usage ? { usage: result.usage } : {}),
        })
      }
      return { kind: 'aborted' }
    }
    if (result.finish !== 'error') {
      o.session.append('assistant/message', { turn: o.turn, step: o.step, message: result.message, ...(result.usage ? { usage: result.usage } : {}) })
      return { kind: 'answer', message: result.message, finish: result.finish }
    }
    const error = result.error ?? new ModelError('empty-response', 'DeepSeek ended the response without saying why; try again.')
    failures++
    const recovered = await o.recover(error, failures)
    if (recovered) {
      encoded = recovered
      sent = false
      continue
    }
    if (error.code === 'reasoning-passback' && !passbackRepaired) {
      // Repaired once, without waiting: the retry is logged, and the new body gets its own request/sent.
      passbackRepaired = true
      encoded = o.repairPassback()
      o.session.append('llm/retry', { turn: o.turn, step: o.step, attempt: failures, delayMs: 0, error: logged(error) })
      o.notify('warning', 'DeepSeek asked for reasoning to be passed back; resending once with reasoning on every assistant message.')
      sent = false
      continue
    }
    const delay = retryDelay(error, failures - 1, o.random)
    if (delay === null) return { kind: 'failed', error: logged(error) }
    o.session.append('llm/retry', { turn: o.turn, step: o.step, attempt: failures, delayMs: delay, error: logged(error) })
    o.notify('warning', `${error.message} Retrying in ${(delay / 1000).toFixed(1)} s.`)
    await o.sleep(delay, o.signal)
    if (o.signal.aborted) return { kind: 'aborted' }
  }
}

/** A model error as the log keeps it. Its message already names the remedy (src/llm/describe.ts). */
export function logged(error: ModelError): LoggedError {
  // toJSON leaves out the fields it does not have, so every value present is JSON.
  return error.toJSON() as LoggedError
}

async function stream(body: RequestBody, o: SendOptions) {
  const assembler = new ResponseAssembler()
  for await (const chunk of o.adapter.stream(body, { signal: o.signal })) {
    assembler.push(chunk)
    if (chunk.type === 'text-delta') o.emit({ type: 'text-delta', turn: o.turn, step: o.step, text: chunk.text })
    else if (chunk.type === 'reasoning-delta') o.emit({ type: 'reasoning-delta', turn: o.turn, step: o.step, text: chunk.text })
    else if (chunk.type === 'tool-call-delta') o.emit({ ...chunk, turn: o.turn, step: o.step })
  }
  return assembler.result()
}

/** Sleeps `ms`, or less when `signal` aborts first. */
export const defaultSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done(): void {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
