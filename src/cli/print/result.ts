import { costOf, modelInfo, type ModelInfo } from '../../llm/catalog.js'
import { addUsage, textOf, zeroUsage, type Usage } from '../../llm/messages.js'
import { sideRequestUsage, type AnyEvent, type SessionEvent, type TurnEndReason } from '../../session/events.js'
import type { TurnOutcome } from '../../agent/types.js'
import { nameUuid, type Uuid } from './claude/ids.js'
import { stopReason } from './claude/messages.js'
import type { StopReason } from './claude/shapes.js'

/** Token totals in Claude Code's result shape. `input_tokens` excludes cache reads: the four counts are disjoint. */
export interface ResultUsage {
  input_tokens: number
  cache_read_input_tokens: number
  cache_creation_input_tokens: number
  output_tokens: number
  cache_creation: { ephemeral_1h_input_tokens: number; ephemeral_5m_input_tokens: number }
  fallback_credit: null
  inference_geo: string
  iterations: never[]
  output_tokens_details: { thinking_tokens: number }
  server_tool_use: { web_search_requests: number; web_fetch_requests: number }
  service_tier: 'standard'
  speed: 'standard'
}

/** One model's totals in Claude Code's `modelUsage` shape. */
export interface ModelUsageEntry {
  inputTokens: number
  outputTokens: number
  thinkingTokens: number
  cacheReadInputTokens: number
  cacheCreationInputTokens: number
  webSearchRequests: number
  costUSD: number
  contextWindow: number
  maxOutputTokens: number
}

export interface PermissionDenial {
  tool_name: string
  tool_use_id: string
  tool_input: Record<string, unknown>
}

/**
 * The closing object of `--output-format json`, and of each turn in `stream-json` — Claude Code's `result` message
 * with its fields and meanings (docs/headless.md). `result` (the final text) is on success only, `errors` (the
 * sentences a person reads) on the error subtypes only. Rein's own figures sit under `rein`.
 */
export interface ResultLine {
  type: 'result'
  subtype: 'success' | 'error_max_turns' | 'error_during_execution'
  is_error: boolean
  result?: string
  errors?: string[]
  session_id: string
  uuid: Uuid
  /** The API's stop reason of the last response; null when the last request got no response. */
  stop_reason: StopReason | null
  /** Model responses (requests answered) in the turn, as Claude Code counts them. */
  num_turns: number
  duration_ms: number
  /** Time spent waiting on the model: from each request's `request/sent` to its response or failure. */
  duration_api_ms: number
  /** The run's cost so far (cumulative across turns when stdin streams prompts), its subagents' included. */
  total_cost_usd: number
  /** This turn's (or run's) tokens. */
  usage: ResultUsage
  /** The run's totals per model so far, its subagents' models included. */
  modelUsage: Record<string, ModelUsageEntry>
  /** Calls refused because they needed approval and nothing could ask. */
  permission_denials: PermissionDenial[]
  rein: {
    /** Rein's reason the turn ended (`completed`, `max-steps`, `error`…). */
    turn_end_reason: TurnEndReason
    /** Rein turns (prompts run) covered by this result. */
    turns: number
    reasoning_tokens: number
    /** Share of prompt tokens read from DeepSeek's cache, 0 to 1. */
    cache_hit_ratio: number
    /** The subagents the run has finished so far (their `subagent/end` events), apart from the session's own figures. */
    subagents: SubagentTotals
  }
}

/** What a run's finished subagents used: `total_cost_usd` is part of the result's own `total_cost_usd`. */
export interface SubagentTotals {
  count: number
  usage: ResultUsage
  total_cost_usd: number
}

/** What a result needs besides the log. */
export interface ResultTiming {
  apiMs?: number
  /** Where the run began, for the cumulative cost and model totals; default `fromSeq`. */
  runFromSeq?: number
  /** Each child session's model, for `modelUsage`; a child not listed is counted under the session's model. */
  childModels?: ReadonlyMap<string, ModelInfo>
}

/**
 * Summarises the events a one-shot run (or one turn of it) added, from `fromSeq` on: the final assistant text, the
 * responses, usage and cost. `outcome` wins over the log's last `turn/end` (a turn end that could not be written).
 */
export function summarize(
  events: readonly SessionEvent[],
  fromSeq: number,
  sessionId: string,
  outcome: TurnOutcome | undefined,
  model: ModelInfo,
  durationMs: number,
  denials: readonly PermissionDenial[] = [],
  timing: ResultTiming = {},
): ResultLine {
  const childModels = timing.childModels ?? new Map<string, ModelInfo>()
  const range = tally(events, fromSeq, model, childModels)
  const run = timing.runFromSeq === undefined || timing.runFromSeq === fromSeq ? range : tally(events, timing.runFromSeq, model, childModels)
  const reason = outcome?.reason ?? range.lastEnd?.reason ?? 'completed'
  const message = outcome ? outcome.message : range.lastEnd?.error?.message
  const subtype = reason === 'completed' ? 'success' : reason === 'max-steps' ? 'error_max_turns' : 'error_during_execution'
  const usage = range.usage
  const prompt = usage.inputUncached + usage.inputCacheRead
  return {
    type: 'result',
    subtype,
    is_error: subtype !== 'success',
    ...(subtype === 'success' ? { result: range.lastText } : { errors: [message ?? errorSentence(reason)] }),
    session_id: sessionId,
    uuid: nameUuid(`${sessionId}#${events.length - 1}#result`),
    stop_reason: range.stopReason,
    num_turns: range.responses,
    duration_ms: Math.round(durationMs),
    duration_api_ms: Math.round(timing.apiMs ?? 0),
    total_cost_usd: round(run.cost + run.children.cost),
    usage: resultUsage(usage),
    modelUsage: Object.fromEntries(
      [...run.byModel].map(([id, u]) => [
        id,
        {
          inputTokens: u.usage.inputUncached,
          outputTokens: u.usage.output,
          thinkingTokens: u.usage.reasoning,
          cacheReadInputTokens: u.usage.inputCacheRead,
          cacheCreationInputTokens: 0,
          webSearchRequests: 0,
          costUSD: round(u.cost),
          contextWindow: u.info.contextWindow,
          maxOutputTokens: u.info.maxOutput,
        },
      ]),
    ),
    permission_denials: [...denials],
    rein: {
      turn_end_reason: reason,
      turns: range.turns,
      reasoning_tokens: usage.reasoning,
      cache_hit_ratio: prompt ? Number((usage.inputCacheRead / prompt).toFixed(4)) : 0,
      subagents: { count: run.children.count, usage: resultUsage(run.children.usage), total_cost_usd: round(run.children.cost) },
    },
  }
}

/** The last assistant text of the events from `fromSeq` on: what `--output-format text` prints, whatever the outcome. */
export function lastAssistantText(events: readonly SessionEvent[], fromSeq: number): string {
  for (let i = events.length - 1; i >= fromSeq; i--) {
    const e = events[i] as AnyEvent
    if (e.type !== 'assistant/message') continue
    const text = textOf(e.data.message.content)
    if (text) return text
  }
  return ''
}

interface Tally {
  /** The session's own responses. */
  usage: Usage
  cost: number
  /** Finished subagents, from the session's `subagent/end` events. */
  children: { count: number; usage: Usage; cost: number }
  /** The session's own and its subagents', by model id. */
  byModel: Map<string, { usage: Usage; cost: number; info: ModelInfo }>
  responses: number
  turns: number
  lastText: string
  stopReason: StopReason | null
  lastEnd: SessionEvent<'turn/end'>['data'] | undefined
}

function tally(events: readonly SessionEvent[], fromSeq: number, model: ModelInfo, childModels: ReadonlyMap<string, ModelInfo>): Tally {
  const t: Tally = { usage: zeroUsage, cost: 0, children: { count: 0, usage: zeroUsage, cost: 0 }, byModel: new Map(), responses: 0, turns: 0, lastText: '', stopReason: null, lastEnd: undefined }
  let current = model.id
  let answered = false
  for (let i = fromSeq; i < events.length; i++) {
    // The envelope type is generic; the union narrows `data` by `type` in the switch below.
    const e = events[i] as AnyEvent
    switch (e.type) {
      case 'request/header':
        current = e.data.config.model
        break
      case 'turn/start':
        t.turns++
        break
      case 'turn/end':
        t.lastEnd = e.data
        break
      case 'step/start':
        answered = false
        t.stopReason = null
        break
      case 'assistant/message': {
        const event = e
        t.responses++
        answered = true
        let j = i + 1
        while (j < events.length && events[j].type === 'step/end') j++
        const next = events[j]
        t.stopReason = stopReason(event, next)
        const text = textOf(event.data.message.content)
        if (text) t.lastText = text
        if (event.data.usage) {
          const cost = costOf(event.data.usage, model, e.time)
          t.usage = addUsage(t.usage, event.data.usage)
          t.cost += cost
          addModel(t, current, model, event.data.usage, cost)
        }
        break
      }
      case 'subagent/end': {
        const { usage, cost } = e.data
        const info = childModels.get(e.data.child) ?? model
        t.children = { count: t.children.count + 1, usage: addUsage(t.children.usage, usage), cost: t.children.cost + cost }
        addModel(t, info.id, info, usage, cost)
        break
      }
      default: {
        // A compaction's summary, or a model-made title's request (print mode makes none): every spend the range logs counts.
        const side = sideRequestUsage(e)
        if (side) {
          const info = side.model === model.id ? model : modelInfo(side.model)
          const cost = costOf(side.usage, info, e.time)
          t.usage = addUsage(t.usage, side.usage)
          t.cost += cost
          addModel(t, info.id, info, side.usage, cost)
        }
        break
      }
    }
  }
  if (!answered) t.stopReason = null
  return t
}

function addModel(t: Tally, id: string, info: ModelInfo, usage: Usage, cost: number): void {
  const entry = t.byModel.get(id) ?? { usage: zeroUsage, cost: 0, info }
  t.byModel.set(id, { usage: addUsage(entry.usage, usage), cost: entry.cost + cost, info: entry.info })
}

function resultUsage(usage: Usage): ResultUsage {
  return {
    input_tokens: usage.inputUncached,
    cache_read_input_tokens: usage.inputCacheRead,
    cache_creation_input_tokens: 0,
    output_tokens: usage.output,
    cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
    fallback_credit: null,
    inference_geo: '',
    iterations: [],
    output_tokens_details: { thinking_tokens: usage.reasoning },
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    service_tier: 'standard',
    speed: 'standard',
  }
}

/** The sentence for a turn that ended early without a message of its own. */
function errorSentence(reason: TurnEndReason): string {
  switch (reason) {
    case 'max-steps':
      return 'The turn reached the --max-turns limit before the model finished.'
    case 'aborted':
    case 'interrupted':
      return 'The turn was interrupted before the model finished.'
    default:
      return `The turn ended ${reason}.`
  }
}

const round = (n: number): number => Number(n.toFixed(6))

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
