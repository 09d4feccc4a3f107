import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { modelInfo } from '../../src/llm/catalog.js'
import { summarize } from '../../src/cli/print/result.js'
import { realServices } from '../../src/cli/tui/real-services.js'
import { costReport } from '../../src/cli/tui/session-reports.js'
import { UsageLedger } from '../../src/cli/tui/usage-ledger.js'
import type { SessionEvent } from '../../src/session/events.js'
import { outcomeOf } from '../../src/fleet/outcome.js'
import { spendBudget } from '../../src/agent/budget.js'
import { sessionFigures } from '../../src/web/figures.js'
import { costOf } from '../../src/llm/catalog.js'

/** Monday 2026-11-30 02:00 UTC is peak; the same day at 12:00 is off-peak. */
const PEAK = Date.UTC(2026, 10, 30, 2)
const OFF_PEAK = Date.UTC(2026, 10, 30, 12)
const usage = { inputUncached: 100_000, inputCacheRead: 900_000, output: 50_000, reasoning: 10_000 }
// deepseek-flash: off-peak 0.1 × 0.15 + 0.9 × 0.003 + 0.05 × 0.60 = $0.0477; peak twice that, $0.0954.
const OFF_PEAK_COST = 0.0477
const PEAK_COST = 0.0954

function events(): SessionEvent[] {
  const e = (seq: number, type: string, data: unknown, time = 0) => ({ seq, time, type, data }) as SessionEvent
  return [
    e(0, 'request/header', { reason: 'initial', config: { model: 'deepseek-flash', effort: 'high' }, system: '', tools: [] }),
    e(1, 'turn/start', { turn: 1 }),
    e(2, 'assistant/message', { turn: 1, step: 1, message: { role: 'assistant', content: [{ type: 'text', text: 'a' }] }, usage }, OFF_PEAK),
    e(3, 'turn/end', { turn: 1, reason: 'completed' }),
    e(4, 'turn/start', { turn: 2 }),
    e(5, 'assistant/message', { turn: 2, step: 1, message: { role: 'assistant', content: [{ type: 'text', text: 'b' }] }, usage }, PEAK),
    e(6, 'turn/end', { turn: 2, reason: 'completed' }),
  ]
}

describe('costs shown to a person use current prices at the hour each response was answered', () => {
  it('the footer total and /cost rows price each turn at its own hour', () => {
    const services = realServices({ home: mkdtempSync(join(tmpdir(), 'rein-cost-')), settings: {} })
    const ledger = new UsageLedger(services.facts, 'deepseek-flash')
    ledger.load(events())
    expect(ledger.figures('deepseek-flash').totalCost).toBeCloseTo(OFF_PEAK_COST + PEAK_COST, 10)
    expect(ledger.byTurn().map((t) => Number(t.cost.toFixed(6)))).toEqual([OFF_PEAK_COST, PEAK_COST])
    expect(costReport(ledger.byTurn())).toContain('$0.0954')
  })

  it('the json result totals the responses of the run, each at its own hour', () => {
    const result = summarize(events(), 0, 's', { turn: 2, reason: 'completed' }, modelInfo('deepseek-flash'), 10)
    expect(result.total_cost_usd).toBe(Number((OFF_PEAK_COST + PEAK_COST).toFixed(6)))
  })
})

describe('a compaction summary\'s request is spend like any step, counted once on every surface', () => {
  // Turn 1 answered off-peak, then a summary answered by deepseek-pro at peak, logged on compaction/end.
  const log = (): SessionEvent[] => {
    const e = (seq: number, type: string, data: unknown, time = 0) => ({ seq, time, type, data }) as SessionEvent
    return [
      ...events().slice(0, 4),
      e(4, 'compaction/start', { id: 'c', trigger: 'manual', start: 1, end: 2, mode: 'summary' }),
      e(5, 'compaction/end', { id: 'c', outcome: 'replaced', usage, model: 'deepseek-v4-pro' }, PEAK),
    ]
  }
  const summary = costOf(usage, modelInfo('deepseek-v4-pro'), PEAK)
  const total = OFF_PEAK_COST + summary
  const price = (model: string, u: typeof usage, time: number) => costOf(u, modelInfo(model), time)

  it('/cost lists it on its own line at the model that answered, and the footer and total include it', () => {
    const services = realServices({ home: mkdtempSync(join(tmpdir(), 'rein-cost-')), settings: {} })
    const ledger = new UsageLedger(services.facts, 'deepseek-flash')
    ledger.load(log())
    expect(summary).toBeGreaterThan(PEAK_COST)
    expect(ledger.figures('deepseek-flash').totalCost).toBeCloseTo(total, 10)
    const report = costReport(ledger.byTurn(), ledger.subagents(), ledger.sideRequests())
    expect(report).toMatch(/^compaction {2}deepseek-v4-pro {2}in 1\.0M {2}out 50k {2}\$/m)
    expect(report).toContain(`total $${total.toFixed(4)}`)
  })

  it('the headless result, a batch outcome, the spend cap and the web figures count it once', () => {
    expect(summarize(log(), 0, 's', { turn: 1, reason: 'completed' }, modelInfo('deepseek-flash'), 10).total_cost_usd).toBe(Number(total.toFixed(6)))
    expect(outcomeOf(log()).cost).toBeCloseTo(total, 10)
    expect(sessionFigures(log(), price).cost).toBeCloseTo(total, 10)
    const cap = spendBudget({ usd: total - 0.001 })
    cap.exceeded([])
    expect(cap.exceeded(log())).toMatch(/reached its budget/)
    expect(spendBudget({ usd: total + 0.001 }).exceeded(log())).toBeUndefined()
  })

  it('a summary logged before compaction/end named its model is left out, as before, rather than guessed', () => {
    const old = log().map((e) => (e.type === 'compaction/end' ? ({ ...e, data: { id: 'c', outcome: 'replaced', usage } } as SessionEvent) : e))
    expect(outcomeOf(old).cost).toBeCloseTo(OFF_PEAK_COST, 10)
  })
})
