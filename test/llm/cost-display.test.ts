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
