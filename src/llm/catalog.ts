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
  prices: Prices
  /** Whether the model accepts image input; images sent to a model without it are replaced by a note. */
  images: boolean
  /** The wire to use for this model when a setting does not choose one. Absent means `chat`. */
  wire?: Wire
}

export const DEFAULT_MODEL = 'deepseek-v4-flash'

const FLASH_PRICES: Prices = { cacheHit: 0.028, cacheMiss: 0.14, output: 0.28 }
const PRO_PRICES: Prices = { cacheHit: 0.145, cacheMiss: 1.74, output: 3.48 }

/**
 * DeepSeek's published figures when this table was written. The legacy ids are compatibility aliases that DeepSeek
 * serves with V4 Flash and bills at its price, but keep their 128K window here as the issue asks.
 */
const BUILT_IN: readonly ModelInfo[] = [
  { id: 'deepseek-v4-flash', contextWindow: 1_000_000, maxOutput: 384_000, prices: FLASH_PRICES, images: false },
  { id: 'deepseek-v4-pro', contextWindow: 1_000_000, maxOutput: 384_000, prices: PRO_PRICES, images: false },
  { id: 'deepseek-chat', contextWindow: 128_000, maxOutput: 8_192, prices: FLASH_PRICES, images: false },
  { id: 'deepseek-reasoner', contextWindow: 128_000, maxOutput: 65_536, prices: FLASH_PRICES, images: false },
]

/** The ids Rein ships figures for, in catalog order. */
export const KNOWN_MODEL_IDS: readonly string[] = BUILT_IN.map((m) => m.id)

/** What an unknown id gets: a conservative window, and Flash prices so cost is an estimate rather than zero. */
const UNKNOWN: Omit<ModelInfo, 'id'> = { contextWindow: 128_000, maxOutput: 32_768, prices: FLASH_PRICES, images: false }

/** True when the id is in the built-in table (the adapter then sends the table's output cap). */
export function isKnownModel(id: string): boolean {
  return BUILT_IN.some((m) => m.id === id)
}

/**
 * The catalog entry for `id`. Any id is accepted and sent to the provider verbatim; unknown ids get the defaults
 * above. `overrides` (from settings) replace fields per id, prices field by field, and may add new ids.
 */
export function modelInfo(id: string, overrides: Record<string, Partial<ModelInfo>> = {}): ModelInfo {
  const base = BUILT_IN.find((m) => m.id === id) ?? { id, ...UNKNOWN }
  const override = overrides[id]
  if (!override) return { ...base, prices: { ...base.prices } }
  return { ...base, ...override, id, prices: { ...base.prices, ...override.prices } }
}

/** The price of one response's usage, in USD. Reasoning tokens are part of `output` and are not counted twice. */
export function costOf(usage: Usage, info: ModelInfo): number {
  const { prices } = info
  return (
    (usage.inputUncached * prices.cacheMiss + usage.inputCacheRead * prices.cacheHit + usage.output * prices.output) /
    1_000_000
  )
}
