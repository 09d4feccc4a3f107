import { costOf, modelInfo } from '../llm/catalog.js'
import { sideRequestUsage, type SessionEvent } from '../session/events.js'

/** What a run may spend: USD at the catalog's prices, and tokens (input and output), over this run's requests. */
export interface SpendLimit {
  usd?: number
  tokens?: number
}

/**
 * A spend cap for one run (`rein -p --max-budget-usd`, a batch task's `max_cost_usd`/`max_tokens`). Asked before each
 * step with the session's events: a sentence ends the turn `max-steps` (error code `budget`) before the request.
 * Only this run's requests count: the first question marks where the run began in the log (no request of the run
 * precedes it), so a resumed session's earlier spending is the caller's to subtract. Every question must pass the same
 * session's events (append-only): each costs O(events appended since the last).
 */
export function spendBudget(limit: SpendLimit): { exceeded(events: readonly SessionEvent[]): string | undefined } {
  let from: number | undefined
  // Running sums over the events read so far: the log only grows, so each question reads only what was appended since.
  let read = 0
  let usd = 0
  let tokens = 0
  let model = ''
  return {
    exceeded(events) {
      from ??= events.length
      for (; read < events.length; read++) {
        const event = events[read]
        if (event.type === 'request/header') model = (event as SessionEvent<'request/header'>).data.config.model
        if (read < from) continue
        // A request outside the steps (a model-made title, a compaction's summary) is this run's spend too, priced at
        // the model it names.
        const side = sideRequestUsage(event)
        const usage = side?.usage ?? (event.type === 'assistant/message' ? (event as SessionEvent<'assistant/message'>).data.usage : undefined)
        if (!usage) continue
        usd += costOf(usage, modelInfo(side?.model ?? model), event.time)
        tokens += usage.inputUncached + usage.inputCacheRead + usage.output
      }
      if (limit.usd !== undefined && usd >= limit.usd) {
        return `the run reached its budget of $${limit.usd} (spent $${usd.toFixed(6)}); it was stopped before the next model request.`
      }
      if (limit.tokens !== undefined && tokens >= limit.tokens) {
        return `the run reached its budget of ${limit.tokens} tokens (used ${tokens}); it was stopped before the next model request.`
      }
      return undefined
    },
  }
}
