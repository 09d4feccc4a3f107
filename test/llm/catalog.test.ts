import { describe, expect, it } from 'vitest'
import { costOf, modelInfo } from '../../src/llm/catalog.js'

describe('the model catalog', () => {
  it('knows the V4 models with a million-token window and the legacy ids with 128K', () => {
    expect(modelInfo('deepseek-v4-flash').contextWindow).toBe(1_000_000)
    expect(modelInfo('deepseek-v4-pro').prices).toEqual({ cacheHit: 0.145, cacheMiss: 1.74, output: 3.48 })
    expect(modelInfo('deepseek-chat').contextWindow).toBe(128_000)
    expect(modelInfo('deepseek-reasoner').contextWindow).toBe(128_000)
  })

  it('accepts any id with sensible defaults', () => {
    const info = modelInfo('somebody/custom-model')
    expect(info.id).toBe('somebody/custom-model')
    expect(info.contextWindow).toBeGreaterThan(0)
    expect(info.prices.output).toBeGreaterThan(0)
  })

  it('applies settings overrides field by field, prices included, and adds new ids', () => {
    const overrides = { 'deepseek-v4-flash': { prices: { cacheHit: 0.01 } as never, maxOutput: 1000 }, mine: { contextWindow: 42 } }
    const flash = modelInfo('deepseek-v4-flash', overrides)
    expect(flash.prices).toEqual({ cacheHit: 0.01, cacheMiss: 0.14, output: 0.28 })
    expect(flash.maxOutput).toBe(1000)
    expect(modelInfo('mine', overrides).contextWindow).toBe(42)
    expect(modelInfo('deepseek-v4-flash').prices.cacheHit).toBe(0.028)
  })

  it('prices cache hits, misses and output separately, in USD', () => {
    const cost = costOf({ inputUncached: 1_000_000, inputCacheRead: 2_000_000, output: 500_000, reasoning: 100_000 }, modelInfo('deepseek-v4-pro'))
    expect(cost).toBeCloseTo(1.74 + 0.29 + 1.74, 10)
  })
})
