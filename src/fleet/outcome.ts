import { costOf, DEFAULT_MODEL, modelInfo } from '../llm/catalog.js'
import { addUsage, textOf, zeroUsage, type Usage } from '../llm/messages.js'
import { sideRequestUsage, type SessionEvent } from '../session/events.js'

/**
 * How a task ended. `interrupted` tasks get no result line: a re-run (or another worker) finishes them. `cancelled`:
 * its queued batch was cancelled (`rein batch cancel`) before the task finished.
 */
export type TaskStatus = 'completed' | 'failed' | 'timeout' | 'cancelled'

/** One line of `--out`: what a task did, read from its session log (the log is the truth, not the process). */
export interface TaskResult {
  id: string
  status: TaskStatus
  session_id: string | null
  /** The last assistant text of the session. */
  result: string
  usage: { input_tokens: number; cache_read_input_tokens: number; output_tokens: number; reasoning_tokens: number }
  /** USD, from the catalog's prices at each request's time, over every attempt of the task. */
  cost_usd: number
  /** Wall time of the attempt that finished the task, ms. */
  duration_ms: number
  /** How many times the task was started (1 unless it was interrupted, killed or retried). */
  attempts: number
  error?: string
}

/** What a session log says about the task run in it: the last turn's end, the last text, usage and cost. */
export interface LogOutcome {
  /** The reason of the last `turn/end`, or undefined when no turn ended. */
  reason: string | undefined
  error?: string
  text: string
  usage: Usage
  cost: number
  /** True when the log has a prompt: a retry continues the conversation instead of starting it. */
  prompted: boolean
  /** How many turns the log closed (`turn/end` records). */
  turnEnds: number
}

export function outcomeOf(events: readonly SessionEvent[]): LogOutcome {
  let usage: Usage = zeroUsage
  let cost = 0
  let text = ''
  let reason: string | undefined
  let error: string | undefined
  let model = DEFAULT_MODEL
  let prompted = false
  let turnEnds = 0
  for (const event of events) {
    // A request outside the steps: a compaction's summary (a model-made title too, should a batch log hold one).
    const side = sideRequestUsage(event)
    if (side) {
      usage = addUsage(usage, side.usage)
      cost += costOf(side.usage, modelInfo(side.model), event.time)
    } else if (event.type === 'request/header') model = (event as SessionEvent<'request/header'>).data.config.model
    else if (event.type === 'user/message') prompted = true
    else if (event.type === 'turn/end') {
      const data = (event as SessionEvent<'turn/end'>).data
      reason = data.reason
      error = data.error?.message
      turnEnds++
    } else if (event.type === 'assistant/message') {
      const data = (event as SessionEvent<'assistant/message'>).data
      if (data.usage) {
        usage = addUsage(usage, data.usage)
        cost += costOf(data.usage, modelInfo(model), event.time)
      }
      const said = textOf(data.message.content)
      if (said) text = said
    }
  }
  return { reason, ...(error ? { error } : {}), text, usage, cost, prompted, turnEnds }
}

export function usageFields(usage: Usage): TaskResult['usage'] {
  return {
    input_tokens: usage.inputUncached + usage.inputCacheRead,
    cache_read_input_tokens: usage.inputCacheRead,
    output_tokens: usage.output,
    reasoning_tokens: usage.reasoning,
  }
}

/** Tokens a progress line counts: input and output. */
export function tokensOf(result: Pick<TaskResult, 'usage'>): number {
  return result.usage.input_tokens + result.usage.output_tokens
}
