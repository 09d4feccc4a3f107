import type { Wire } from './adapter.js'
import type { Usage } from './messages.js'

/** USD per one million tokens. */
export interface Prices {
  /** Input tokens served from DeepSeek's context cache. */
  cacheHit: number
  /** Input tokens not in the cache. */
  cacheMiss: number
  output: number
}

/** What Rein knows about one model. Token counts are tokens; prices are USD per 1M tokens. */
export interface ModelInfo {
  id: string
  contextWindow: number
  maxOutput: number
  /** Off-peak prices, and the all-day prices of a model without `peakPrices`. */
  prices: Prices
  /** Prices during DeepSeek's peak hours (see `isPeak`); absent means the model costs the same all day. */
  peakPrices?: Prices
  /** Whether the model accepts image input; images sent to a model without it are replaced by a note. */
  images: boolean
  /** The wire to use for this model when a setting does not choose one. Absent means `chat`. */
  wire?: Wire
  /** For an alias: the model DeepSeek serves and bills it as. */
  aliasOf?: string
}

/** A model DeepSeek no longer serves: requests naming it fail, so Rein refuses it before sending any. */
export interface RetiredModel {
  id: string
  retiredOn: string
  replacement: string
}

export const DEFAULT_MODEL = 'deepseek-flash'

/** DeepSeek's Models & Pricing page, November 2026 (see docs/model-access.md for each figure's source). */
const FLASH_OFF_PEAK: Prices = { cacheHit: 0.003, cacheMiss: 0.15, output: 0.6 }
const FLASH_PEAK: Prices = { cacheHit: 0.006, cacheMiss: 0.3, output: 1.2 }
const PRO_OFF_PEAK: Prices = { cacheHit: 0.022, cacheMiss: 0.66, output: 1.98 }
const PRO_PEAK: Prices = { cacheHit: 0.044, cacheMiss: 1.32, output: 3.96 }

/** V4's context length: prompt plus `max_tokens` must fit in it. */
export const V4_CONTEXT_WINDOW = 1_048_565
const V4_MAX_OUTPUT = 384_000

const FLASH: ModelInfo = {
  id: 'deepseek-flash',
  contextWindow: V4_CONTEXT_WINDOW,
  maxOutput: V4_MAX_OUTPUT,
  prices: FLASH_OFF_PEAK,
  peakPrices: FLASH_PEAK,
  images: true,
}

const BUILT_IN: readonly ModelInfo[] = [
  FLASH,
  {
    id: 'deepseek-v4-pro',
    contextWindow: V4_CONTEXT_WINDOW,
    maxOutput: V4_MAX_OUTPUT,
    prices: PRO_OFF_PEAK,
    peakPrices: PRO_PEAK,
    images: false,
  },
  // Legacy names DeepSeek still serves with V4.1-Flash and bills at its price (Models & Pricing, note 1).
  { ...FLASH, id: 'deepseek-v4-flash', aliasOf: 'deepseek-flash' },
  { ...FLASH, id: 'deepseek-v4-flash-vision-exp', aliasOf: 'deepseek-flash' },
]

const RETIRED: readonly RetiredModel[] = [
  { id: 'deepseek-chat', retiredOn: '2026-07-24', replacement: 'deepseek-flash' },
  { id: 'deepseek-reasoner', retiredOn: '2026-07-24', replacement: 'deepseek-flash' },
]

/** The ids Rein ships figures for, in catalog order. */
export const KNOWN_MODEL_IDS: readonly string[] = BUILT_IN.map((m) => m.id)

/** The ids DeepSeek retired, for the mock and for `rein models`. */
export const RETIRED_MODELS: readonly RetiredModel[] = RETIRED

/** What an unknown id gets: a conservative window, and Flash prices so cost is an estimate rather than zero. */
const UNKNOWN: Omit<ModelInfo, 'id'> = {
  contextWindow: 128_000,
  maxOutput: 32_768,
  prices: FLASH_OFF_PEAK,
  peakPrices: FLASH_PEAK,
  images: false,
}

/** A user's addition or override of one model (`models.<id>` in settings); prices replace field by field. */
export interface ModelOverride {
  contextWindow?: number
  maxOutput?: number
  prices?: Partial<Prices>
  peakPrices?: Partial<Prices>
  images?: boolean
  wire?: Wire
}

/**
 * DeepSeek's Anthropic wire accepts model names that start with `claude`: `claude-opus*` is served and billed as
 * V4 Pro, every other `claude*` name as Flash (guides/anthropic_api, "Anthropic Model Mapping"). Such a name is an
 * alias here that uses the Anthropic wire, since the chat wire does not map it.
 */
export function claudeAliasOf(id: string): string | undefined {
  if (!id.startsWith('claude')) return undefined
  return id.startsWith('claude-opus') ? 'deepseek-v4-pro' : DEFAULT_MODEL
}

/** The built-in entry for `id`: the table, or a `claude*` name mapped as DeepSeek maps it. */
function builtIn(id: string): ModelInfo | undefined {
  const listed = BUILT_IN.find((m) => m.id === id)
  if (listed) return listed
  const target = claudeAliasOf(id)
  const served = target ? BUILT_IN.find((m) => m.id === target) : undefined
  return served ? { ...served, id, aliasOf: target, wire: 'anthropic' } : undefined
}

/** True when the id is in the built-in table, or a `claude*` name DeepSeek maps to one of its models. */
export function isKnownModel(id: string): boolean {
  return builtIn(id) !== undefined
}

/** The retirement of `id`, if DeepSeek retired it and the user has not described it as a model of their own. */
export function retiredModel(id: string, overrides: Record<string, ModelOverride> = {}): RetiredModel | undefined {
  if (overrides[id]) return undefined
  return RETIRED.find((m) => m.id === id)
}

/** The one sentence a person reads when they name a retired id. */
export function retiredSentence(retired: RetiredModel): string {
  return `DeepSeek retired ${retired.id} on ${retired.retiredOn}; use ${retired.replacement} instead (--model ${retired.replacement}, or "model" in settings).`
}

/**
 * The catalog entry for `id`. Any id is accepted and sent to the provider verbatim; unknown ids get the defaults
 * above. `overrides` (from settings) replace fields per id, prices field by field, and may add new ids.
 */
export function modelInfo(id: string, overrides: Record<string, ModelOverride> = {}): ModelInfo {
  const base = builtIn(id) ?? { id, ...UNKNOWN }
  const override = overrides[id]
  const info: ModelInfo = { ...base, prices: { ...base.prices }, ...(base.peakPrices ? { peakPrices: { ...base.peakPrices } } : {}) }
  if (!override) return info
  if (override.contextWindow !== undefined) info.contextWindow = override.contextWindow
  if (override.maxOutput !== undefined) info.maxOutput = override.maxOutput
  if (override.images !== undefined) info.images = override.images
  if (override.wire !== undefined) info.wire = override.wire
  if (override.prices) info.prices = { ...info.prices, ...override.prices }
  if (override.peakPrices) info.peakPrices = { ...(info.peakPrices ?? info.prices), ...override.peakPrices }
  else if (override.prices && !isKnownModel(id)) delete info.peakPrices
  return info
}

/**
 * True when `model` costs more than `than` for some kind of token at some hour (off-peak or peak): a file that may
 * only narrow what a run spends may not switch to it.
 */
export function costsMore(model: ModelInfo, than: ModelInfo): boolean {
  const hours: [Prices, Prices][] = [
    [model.prices, than.prices],
    [model.peakPrices ?? model.prices, than.peakPrices ?? than.prices],
  ]
  return hours.some(([a, b]) => a.cacheHit > b.cacheHit || a.cacheMiss > b.cacheMiss || a.output > b.output)
}

/**
 * DeepSeek's peak hours: 01:00–04:00 and 06:00–10:00 UTC, Monday to Friday. Every other hour is off-peak.
 * `time` is milliseconds since the epoch.
 */
export function isPeak(time: number): boolean {
  const at = new Date(time)
  const day = at.getUTCDay()
  if (day === 0 || day === 6) return false
  const hour = at.getUTCHours()
  return (hour >= 1 && hour < 4) || (hour >= 6 && hour < 10)
}

/** The prices in force at `time` (milliseconds since the epoch). */
export function pricesAt(info: ModelInfo, time: number): Prices {
  return info.peakPrices && isPeak(time) ? info.peakPrices : info.prices
}

/**
 * The price of one response's usage, in USD, at the prices in force when it was answered (`time`, milliseconds
 * since the epoch: the `assistant/message` event's time). Reasoning tokens are part of `output` and are not counted
 * twice.
 */
export function costOf(usage: Usage, info: ModelInfo, time: number): number {
  const prices = pricesAt(info, time)
  return (
    (usage.inputUncached * prices.cacheMiss + usage.inputCacheRead * prices.cacheHit + usage.output * prices.output) /
    1_000_000
  )
}
