import { describe, expect, it } from 'vitest'
import { costOf, DEFAULT_MODEL, isPeak, modelInfo, retiredModel, retiredSentence } from '../../src/llm/catalog.js'
import { modelOverridesOf, modelsSettingSchema } from '../../src/llm/model-settings.js'

/** Fixed instants, UTC. 2026-11-30 is a Monday; 2026-11-28 a Saturday. */
const MONDAY_0200 = Date.UTC(2026, 10, 30, 2, 0)
const MONDAY_0500 = Date.UTC(2026, 10, 30, 5, 0)
const MONDAY_0959 = Date.UTC(2026, 10, 30, 9, 59)
const MONDAY_1000 = Date.UTC(2026, 10, 30, 10, 0)
const MONDAY_0100 = Date.UTC(2026, 10, 30, 1, 0)
const MONDAY_0059 = Date.UTC(2026, 10, 30, 0, 59)
const SATURDAY_0200 = Date.UTC(2026, 10, 28, 2, 0)

const MILLION = { inputUncached: 1_000_000, inputCacheRead: 1_000_000, output: 1_000_000, reasoning: 0 }

describe('the model catalog', () => {
  it('defaults to deepseek-flash, a 1M-token vision model with a 384K output cap', () => {
    expect(DEFAULT_MODEL).toBe('deepseek-flash')
    const flash = modelInfo('deepseek-flash')
    expect(flash.contextWindow).toBe(1_048_565)
    expect(flash.maxOutput).toBe(384_000)
    expect(flash.images).toBe(true)
  })

  it('knows deepseek-v4-pro without vision and deepseek-v4-flash as an alias billed as Flash', () => {
    expect(modelInfo('deepseek-v4-pro').images).toBe(false)
    expect(modelInfo('deepseek-v4-pro').contextWindow).toBe(1_048_565)
    const alias = modelInfo('deepseek-v4-flash')
    expect(alias.aliasOf).toBe('deepseek-flash')
    expect(alias.prices).toEqual(modelInfo('deepseek-flash').prices)
    expect(alias.peakPrices).toEqual(modelInfo('deepseek-flash').peakPrices)
  })

  it('names the replacement of a retired id in one sentence', () => {
    for (const id of ['deepseek-chat', 'deepseek-reasoner']) {
      const retired = retiredModel(id)
      expect(retired?.replacement).toBe('deepseek-flash')
      expect(retiredSentence(retired!)).toBe(
        `DeepSeek retired ${id} on 2026-07-24; use deepseek-flash instead (--model deepseek-flash, or "model" in settings).`,
      )
    }
    expect(retiredModel('deepseek-flash')).toBeUndefined()
  })

  it('lets a user who describes a retired id in settings use it (another provider may still serve it)', () => {
    expect(retiredModel('deepseek-chat', { 'deepseek-chat': { contextWindow: 64_000 } })).toBeUndefined()
  })

  it('accepts any id with sensible defaults', () => {
    const info = modelInfo('somebody/custom-model')
    expect(info.id).toBe('somebody/custom-model')
    expect(info.contextWindow).toBeGreaterThan(0)
    expect(info.prices.output).toBeGreaterThan(0)
  })

  it('applies settings overrides field by field, prices and peak prices included, and adds new ids', () => {
    const overrides = {
      'deepseek-flash': { prices: { cacheHit: 0.01 }, peakPrices: { output: 2 }, maxOutput: 1000, images: false },
      mine: { contextWindow: 42, prices: { cacheHit: 1, cacheMiss: 2, output: 3 } },
    }
    const flash = modelInfo('deepseek-flash', overrides)
    expect(flash.prices).toEqual({ cacheHit: 0.01, cacheMiss: 0.15, output: 0.6 })
    expect(flash.peakPrices).toEqual({ cacheHit: 0.006, cacheMiss: 0.3, output: 2 })
    expect(flash.maxOutput).toBe(1000)
    expect(flash.images).toBe(false)
    const mine = modelInfo('mine', overrides)
    expect(mine.contextWindow).toBe(42)
    expect(costOf(MILLION, mine, MONDAY_0200)).toBeCloseTo(6, 10)
    expect(modelInfo('deepseek-flash').prices.cacheHit).toBe(0.003)
  })

  it('types the models setting: a wrong field is refused, extra keys kept for their owners', () => {
    expect(modelsSettingSchema.safeParse({ x: { contextWindow: 'big' } }).success).toBe(false)
    expect(modelsSettingSchema.safeParse({ x: { prices: { output: -1 } } }).success).toBe(false)
    expect(modelsSettingSchema.safeParse({ x: { compactAt: 0.5, maxOutput: 10 } }).success).toBe(true)
    expect(modelOverridesOf({ x: { compactAt: 0.5, maxOutput: 10 } })).toEqual({ x: { maxOutput: 10 } })
  })
})

describe('peak and off-peak prices', () => {
  it('puts 01:00–04:00 and 06:00–10:00 UTC on weekdays in peak, and every other hour off-peak', () => {
    expect(isPeak(MONDAY_0059)).toBe(false)
    expect(isPeak(MONDAY_0100)).toBe(true)
    expect(isPeak(MONDAY_0200)).toBe(true)
    expect(isPeak(MONDAY_0500)).toBe(false)
    expect(isPeak(MONDAY_0959)).toBe(true)
    expect(isPeak(MONDAY_1000)).toBe(false)
    expect(isPeak(SATURDAY_0200)).toBe(false)
  })

  it('prices deepseek-flash at 0.003 / 0.15 / 0.60 off-peak and twice that at peak', () => {
    const flash = modelInfo('deepseek-flash')
    expect(costOf(MILLION, flash, MONDAY_0500)).toBeCloseTo(0.003 + 0.15 + 0.6, 10)
    expect(costOf(MILLION, flash, MONDAY_0200)).toBeCloseTo(0.006 + 0.3 + 1.2, 10)
    expect(costOf(MILLION, flash, SATURDAY_0200)).toBeCloseTo(0.003 + 0.15 + 0.6, 10)
  })

  it('prices deepseek-v4-pro at 0.022 / 0.66 / 1.98 off-peak and 0.044 / 1.32 / 3.96 at peak', () => {
    const pro = modelInfo('deepseek-v4-pro')
    expect(costOf(MILLION, pro, MONDAY_1000)).toBeCloseTo(0.022 + 0.66 + 1.98, 10)
    expect(costOf(MILLION, pro, MONDAY_0959)).toBeCloseTo(0.044 + 1.32 + 3.96, 10)
  })

  it('prices cache hits, misses and output separately and counts reasoning only once, as output', () => {
    const cost = costOf({ inputUncached: 1_000_000, inputCacheRead: 2_000_000, output: 500_000, reasoning: 100_000 }, modelInfo('deepseek-v4-pro'), MONDAY_0500)
    expect(cost).toBeCloseTo(0.66 + 0.044 + 0.99, 10)
  })
})
