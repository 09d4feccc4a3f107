import { describe, expect, it } from 'vitest'
import { spendBudget } from '../../src/agent/budget.js'
import type { SessionEvent } from '../../src/session/events.js'

const answer = (seq: number, output: number): SessionEvent =>
  ({
    seq,
    time: 0,
    type: 'assistant/message',
    data: { turn: 1, step: 1, message: { role: 'assistant', content: [] }, usage: { inputUncached: 10, inputCacheRead: 0, output, reasoning: 0 } },
  }) as SessionEvent

describe('a run’s spend budget', () => {
  it('counts each answer once as the log grows between questions, and none from before the run', () => {
    const budget = spendBudget({ tokens: 100 })
    const events: SessionEvent[] = [answer(0, 500)]
    expect(budget.exceeded(events)).toBeUndefined()
    for (let seq = 1; seq <= 4; seq++) {
      events.push(answer(seq, 10))
      const spent = budget.exceeded(events)
      // 20 tokens per answer of this run: the budget of 100 is reached at the fifth answer, not before.
      expect(spent).toBeUndefined()
    }
    events.push(answer(5, 10))
    expect(budget.exceeded(events)).toMatch(/used 100\)/)
    expect(budget.exceeded(events)).toMatch(/used 100\)/)
  })
})
