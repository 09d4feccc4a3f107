import { costOf, modelInfo, type ModelOverride } from '../llm/catalog.js'
import { addUsage, textOf, zeroUsage, type Usage } from '../llm/messages.js'
import type { AnyEvent, SessionEvent } from '../session/events.js'

/** What a child's log says about its run: its last answer, how its last turn ended, and what it cost. */
export interface ChildSummary {
  /** The text of the last assistant message that had any, or undefined. */
  answer: string | undefined
  /** The end reason of the last turn, or `unknown` while a turn is open. */
  outcome: string
  /** The one sentence a failed or blocked turn logged. */
  error?: string
  /** The child's responses and, from its own `subagent/end` events, its subagents' (nested children). */
  usage: Usage
  /** USD, each response priced at its own time with the model of the header in force; its subagents' included. */
  cost: number
}

/** Reads a child's events (pure). */
export function summarizeChild(events: readonly SessionEvent[], overrides: Record<string, ModelOverride> = {}): ChildSummary {
  let answer: string | undefined
  let outcome = 'unknown'
  let error: string | undefined
  let usage = zeroUsage
  let cost = 0
  let model: string | undefined
  for (const stored of events) {
    const event = stored as AnyEvent
    switch (event.type) {
      case 'request/header':
        model = event.data.config.model
        break
      case 'turn/start':
        outcome = 'unknown'
        error = undefined
        break
      case 'turn/end':
        outcome = event.data.reason
        error = event.data.error?.message
        break
      case 'assistant/message': {
        const text = textOf(event.data.message.content).trim()
        if (text) answer = text
        if (event.data.usage) {
          usage = addUsage(usage, event.data.usage)
          if (model) cost += costOf(event.data.usage, modelInfo(model, overrides), event.time)
        }
        break
      }
      case 'subagent/end':
        // A grandchild's own end already sums what lies below it, so each response is counted once.
        usage = addUsage(usage, event.data.usage)
        cost += event.data.cost
        break
    }
  }
  return { answer, outcome, ...(error ? { error } : {}), usage, cost }
}
