import { addUsage, zeroUsage, type Usage } from '../../llm/messages.js'
import { sideRequestUsage, type SessionEvent, type SideRequest } from '../../session/events.js'

/** What the UI needs to know about a model: its window and its prices, applied. */
export interface ModelFacts {
  /** Context window in tokens. */
  contextWindow: number
  /** USD for one response's usage, answered at `time` (milliseconds since the epoch: prices differ at peak hours). */
  cost(usage: Usage, time: number): number
}

export type ModelFactsLookup = (model: string) => ModelFacts

export interface TurnCost {
  turn: number
  model: string
  usage: Usage
  /** USD. */
  cost: number
  requests: number
}

/** The footer's figures, derived from the log alone. */
export interface UsageFigures {
  /** Tokens the last request carried plus what it answered: a floor for the next request. */
  contextTokens: number
  /** `contextTokens` as a share of the model's window, 0..1. */
  contextShare: number
  /** Cache-read share of the last request's prompt, 0..1; undefined before the first response. */
  cacheHitShare?: number
  /** USD for the whole session so far: its own requests only. */
  totalCost: number
  /** USD its subagents spent (from `subagent/end`), shown apart; absent or 0 when none ran. */
  subagentCost?: number
}

/** What the session's subagents used, summed from the `subagent/end` events of its log. */
export interface SubagentCost {
  runs: number
  usage: Usage
  /** USD. */
  cost: number
}

/** What the session's requests of one kind outside its turns (titles, compaction summaries) used, from their events. */
export interface SideCost {
  kind: SideRequest['kind']
  requests: number
  usage: Usage
  /** USD. */
  cost: number
  /** The model of the latest such request. */
  model: string
}

/**
 * Folds `assistant/message` usage into per-turn cost and the footer figures. The model that answered a step is the
 * one named by the latest `request/header` before it, so a mid-session `/model` switch prices each turn right. A
 * request outside the steps (`sideRequestUsage`: a model-made title, a compaction's summary) is priced at the model
 * it names and counts in the total, apart from the turns.
 */
export class UsageLedger {
  private model: string
  private last?: Usage
  private total = 0
  private turns = new Map<number, TurnCost>()
  private children: SubagentCost = { runs: 0, usage: zeroUsage, cost: 0 }
  private side = new Map<SideRequest['kind'], SideCost>()

  constructor(
    private readonly facts: ModelFactsLookup,
    initialModel: string,
  ) {
    this.model = initialModel
  }

  load(events: Iterable<SessionEvent>): void {
    for (const event of events) this.apply(event)
  }

  apply(e: SessionEvent): void {
    const side = sideRequestUsage(e)
    if (side) {
      const cost = this.facts(side.model).cost(side.usage, e.time)
      this.total += cost
      const was = this.side.get(side.kind) ?? { kind: side.kind, requests: 0, usage: zeroUsage, cost: 0, model: '' }
      this.side.set(side.kind, { kind: side.kind, requests: was.requests + 1, usage: addUsage(was.usage, side.usage), cost: was.cost + cost, model: side.model })
    } else if (e.type === 'request/header') {
      this.model = e.data.config.model
    } else if (e.type === 'subagent/end') {
      const c = this.children
      this.children = { runs: c.runs + 1, usage: addUsage(c.usage, e.data.usage), cost: c.cost + e.data.cost }
    } else if (e.type === 'assistant/message' && e.data.usage) {
      const usage = e.data.usage
      const cost = this.facts(this.model).cost(usage, e.time)
      this.last = usage
      this.total += cost
      const row = this.turns.get(e.data.turn) ?? { turn: e.data.turn, model: this.model, usage: zeroUsage, cost: 0, requests: 0 }
      this.turns.set(e.data.turn, { ...row, usage: addUsage(row.usage, usage), cost: row.cost + cost, requests: row.requests + 1 })
    }
  }

  figures(model: string): UsageFigures {
    const last = this.last
    const contextTokens = last ? last.inputUncached + last.inputCacheRead + last.output : 0
    const window = this.facts(model).contextWindow
    const prompt = last ? last.inputUncached + last.inputCacheRead : 0
    return {
      contextTokens,
      contextShare: window > 0 ? contextTokens / window : 0,
      cacheHitShare: last && prompt > 0 ? last.inputCacheRead / prompt : undefined,
      totalCost: this.total,
      subagentCost: this.children.cost,
    }
  }

  subagents(): SubagentCost {
    return this.children
  }

  /** The session's requests outside its turns, one entry per kind that made any. */
  sideRequests(): SideCost[] {
    return [...this.side.values()]
  }

  byTurn(): TurnCost[] {
    return [...this.turns.values()].sort((a, b) => a.turn - b.turn)
  }
}

/** `12.3k`, `1.2M`, `850`. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n)
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`
  return `${(n / 1_000_000).toFixed(1)}M`
}

/** `$0.0042`, `$1.27`. Small sums keep four decimals: a DeepSeek turn often costs a fraction of a cent. */
export function formatCost(usd: number): string {
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`
}
