import { costOf, type ModelInfo } from '../../llm/catalog.js'
import { addUsage, textOf, zeroUsage, type Usage } from '../../llm/messages.js'
import type { SessionEvent } from '../../session/events.js'
import type { TurnOutcome } from '../../agent/types.js'

/** The closing object of `--output-format json` and `stream-json`. Field names follow the peers' print modes. */
export interface PrintResult {
  type: 'result'
  subtype: 'success' | 'error'
  is_error: boolean
  result: string
  session_id: string
  stop_reason: string
  num_turns: number
  duration_ms: number
  usage: { input_tokens: number; cache_read_input_tokens: number; output_tokens: number; reasoning_tokens: number }
  total_cost_usd: number
  /** Calls refused because they needed approval and nothing could ask (Claude Code's shape). */
  permission_denials: PermissionDenial[]
  error?: string
}

export interface PermissionDenial {
  tool_name: string
  tool_use_id: string
  tool_input: unknown
}

/** Summarises the events a one-shot run added: the final assistant text, turns, usage and cost. */
export function summarize(
  events: readonly SessionEvent[],
  fromSeq: number,
  sessionId: string,
  outcome: TurnOutcome | undefined,
  model: ModelInfo,
  durationMs: number,
  denials: readonly PermissionDenial[] = [],
): PrintResult {
  let usage: Usage = zeroUsage
  let cost = 0
  let turns = 0
  let last = ''
  for (let i = fromSeq; i < events.length; i++) {
    const e = events[i]
    if (e.type === 'turn/start') turns++
    if (e.type === 'assistant/message') {
      const data = e.data
      if (data.usage) {
        usage = addUsage(usage, data.usage)
        cost += costOf(data.usage, model, e.time)
      }
      const text = textOf(data.message.content)
      if (text) last = text
    }
  }
  const reason = outcome?.reason ?? 'completed'
  const isError = reason !== 'completed'
  return {
    type: 'result',
    subtype: isError ? 'error' : 'success',
    is_error: isError,
    result: last,
    session_id: sessionId,
    stop_reason: reason,
    num_turns: turns,
    duration_ms: Math.round(durationMs),
    usage: {
      input_tokens: usage.inputUncached + usage.inputCacheRead,
      cache_read_input_tokens: usage.inputCacheRead,
      output_tokens: usage.output,
      reasoning_tokens: usage.reasoning,
    },
    total_cost_usd: Number(cost.toFixed(6)),
    permission_denials: [...denials],
    ...(outcome?.message ? { error: outcome.message } : {}),
  }
}

/** Exit codes of one-shot mode: 0 completed, 1 model or tool failure, 130 interrupted. */
export function exitCodeFor(outcome: TurnOutcome | undefined): number {
  switch (outcome?.reason ?? 'completed') {
    case 'completed':
      return 0
    case 'aborted':
    case 'interrupted':
      return 130
    default:
      return 1
  }
}
