import type { ControlLine } from './wire.js'

/** A request's answer; throw (an `Error` with one sentence) to answer with an error response. */
export type ControlHandler = (request: Record<string, unknown> & { subtype: string }, signal: AbortSignal) => Promise<Record<string, unknown> | void> | Record<string, unknown> | void

/** How long Rein waits for the SDK's answer to its own requests, unless a caller says otherwise. */
export const DEFAULT_CONTROL_TIMEOUT_MS = 60_000

interface Pending {
  subtype: string
  resolve: (response: Record<string, unknown>) => void
  reject: (error: Error) => void
  timer: NodeJS.Timeout
}

/**
 * Both directions of the control protocol over one stdin/stdout pair. Requests the SDK sends are answered by the
 * handler registered for their subtype, or at once with an error naming the subtype when there is none; requests
 * Rein sends (`request`) are matched to their answers by `request_id` and give up after their timeout with one
 * sentence. An answer nobody waits for is reported on stderr and dropped.
 */
export class ControlChannel {
  private readonly handlers = new Map<string, ControlHandler>()
  private readonly pending = new Map<string, Pending>()
  private readonly running = new Map<string, AbortController>()
  private next = 0
  private closed = false

  constructor(
    private readonly write: (line: unknown) => void,
    private readonly report: (message: string) => void,
  ) {}

  handle(subtype: string, handler: ControlHandler): void {
    this.handlers.set(subtype, handler)
  }

  /** Dispatches one control line read from stdin. Never throws: every failure becomes a response or a sentence. */
  receive(line: ControlLine): void {
    if (line.type === 'control_response') {
      const waiting = this.pending.get(line.response.request_id)
      if (!waiting) {
        this.report(`A control_response for request "${line.response.request_id.slice(0, 60)}" answers nothing Rein asked (or asked and gave up on); it was ignored.`)
        return
      }
      this.settle(line.response.request_id)
      if (line.response.subtype === 'success') waiting.resolve(line.response.response ?? {})
      else waiting.reject(new Error(`The SDK answered ${waiting.subtype} with an error: ${String(line.response.error)}`))
      return
    }
    if (line.type === 'control_cancel_request') {
      this.running.get(line.request_id)?.abort()
      return
    }
    void this.answer(line.request_id, line.request)
  }

  /**
   * Sends a control request and resolves with the success payload. Rejects with one sentence on an error answer, on
   * `timeoutMs` passing (a `control_cancel_request` then tells the SDK to stop), on `signal`, or when the channel closes.
   */
  request(request: Record<string, unknown> & { subtype: string }, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new Error(`The ${request.subtype} request was not sent: the SDK's input has closed.`))
    const id = `rein-${++this.next}`
    const timeoutMs = options.timeoutMs ?? DEFAULT_CONTROL_TIMEOUT_MS
    return new Promise((resolve, reject) => {
      const giveUp = (why: string) => {
        if (!this.pending.has(id)) return
        this.settle(id)
        this.write({ type: 'control_cancel_request', request_id: id })
        reject(new Error(why))
      }
      const timer = setTimeout(() => giveUp(`The SDK did not answer the ${request.subtype} request within ${timeoutMs / 1000} s.`), timeoutMs)
      options.signal?.addEventListener('abort', () => giveUp(`The ${request.subtype} request was cancelled with the turn.`), { once: true })
      this.pending.set(id, { subtype: request.subtype, resolve, reject, timer })
      this.write({ type: 'control_request', request_id: id, request })
    })
  }

  /** The SDK's input ended: nothing Rein asked can be answered any more. */
  close(): void {
    this.closed = true
    for (const [id, waiting] of this.pending) {
      this.settle(id)
      waiting.reject(new Error(`The SDK's input closed before it answered the ${waiting.subtype} request.`))
    }
    for (const controller of this.running.values()) controller.abort()
  }

  private settle(id: string): void {
    const waiting = this.pending.get(id)
    if (waiting) clearTimeout(waiting.timer)
    this.pending.delete(id)
  }

  private async answer(id: string, request: Record<string, unknown> & { subtype: string }): Promise<void> {
    const handler = this.handlers.get(request.subtype)
    if (!handler) {
      const known = [...this.handlers.keys()].sort().join(', ')
      this.write({ type: 'control_response', response: { subtype: 'error', request_id: id, error: `Rein does not support the control request "${request.subtype.slice(0, 60)}"; it answers ${known}.` } })
      return
    }
    const controller = new AbortController()
    this.running.set(id, controller)
    try {
      const response = (await handler(request, controller.signal)) ?? {}
      this.write({ type: 'control_response', response: { subtype: 'success', request_id: id, response } })
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      this.write({ type: 'control_response', response: { subtype: 'error', request_id: id, error: message } })
    } finally {
      this.running.delete(id)
    }
  }
}
