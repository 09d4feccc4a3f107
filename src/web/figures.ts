import type { Usage } from '../llm/messages.js'
import { sideRequestUsage, type AnyEvent, type SessionEvent } from '../session/events.js'
import type { StepFigures } from './api-types.js'

/** USD for one response's usage by `model`, at the prices in force at `time` (ms since the epoch). */
export type Pricing = (model: string, usage: Usage, time: number) => number

/**
 * The figures of every response the log records usage for, in log order. The model that answered is the one named
 * by the latest `request/header` before it, so a mid-session model switch prices each step at its own model.
 */
export function stepFigures(events: readonly SessionEvent[], price: Pricing): StepFigures[] {
  let model = ''
  let turn = 0
  let step = 0
  const out: StepFigures[] = []
  const add = (seq: number, purpose: StepFigures['purpose'], usage: Usage, time: number, answeredBy = model): void => {
    const prompt = usage.inputUncached + usage.inputCacheRead
    out.push({
      turn,
      step,
      seq,
      purpose,
      model: answeredBy,
      promptTokens: prompt,
      cachedTokens: usage.inputCacheRead,
      outputTokens: usage.output,
      reasoningTokens: usage.reasoning,
      cost: price(answeredBy, usage, time),
      cacheHitShare: prompt > 0 ? usage.inputCacheRead / prompt : 0,
    })
  }
  for (const event of events) {
    const e = event as AnyEvent
    if (e.type === 'request/header') model = e.data.config.model
    else if (e.type === 'request/sent') {
      turn = e.data.turn
      step = e.data.step
    } else if (e.type === 'assistant/message' && e.data.usage) {
      turn = e.data.turn
      step = e.data.step
      add(e.seq, 'step', e.data.usage, e.time)
    } else if (e.type === 'compaction/end' && e.data.usage) add(e.seq, 'compaction', e.data.usage, e.time, e.data.model)
  }
  return out
}

/** How a session stands, from its log: a turn left open is running (or was cut off by a crash). */
export type LoggedState = 'idle' | 'open' | 'interrupted'

export interface SessionFigures {
  model: string
  cost: number
  /** Cache-read share of every prompt token sent, 0..1; undefined before the first response. */
  cacheHitShare?: number
  state: LoggedState
}

export function sessionFigures(events: readonly SessionEvent[], price: Pricing): SessionFigures {
  const steps = stepFigures(events, price)
  let prompt = 0
  let cached = 0
  let cost = 0
  for (const s of steps) {
    prompt += s.promptTokens
    cached += s.cachedTokens
    cost += s.cost
  }
  let model = ''
  let state: LoggedState = 'idle'
  for (const event of events) {
    const e = event as AnyEvent
    // A model-made title's request: in the cost, not a step, and not in the cache-hit share of the session's prefix.
    // A compaction's summary is a row of `stepFigures`, so already in `cost`.
    const side = sideRequestUsage(e)
    if (side?.kind === 'title') cost += price(side.model, side.usage, e.time)
    if (e.type === 'request/header') model = e.data.config.model
    else if (e.type === 'turn/start') state = 'open'
    else if (e.type === 'turn/end') state = e.data.reason === 'interrupted' ? 'interrupted' : 'idle'
  }
  return { model, cost, state, ...(prompt > 0 ? { cacheHitShare: cached / prompt } : {}) }
}
