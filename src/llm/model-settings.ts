import { z } from 'zod'
import type { ModelOverride } from './catalog.js'
import { checkedUserId } from './user-id.js'

const price = z.number().nonnegative()
const prices = z.strictObject({ cacheHit: price.optional(), cacheMiss: price.optional(), output: price.optional() })
const tokens = z.number().int().positive()

/**
 * One entry of `models` in settings: adds a model or overrides the catalog's figures for one. `prices` are off-peak
 * (or all-day) USD per 1M tokens, `peakPrices` those of DeepSeek's peak hours. Other keys (`compactAt`) belong to
 * the modules that read them.
 */
export const modelEntrySchema = z.looseObject({
  contextWindow: tokens.optional(),
  maxOutput: tokens.optional(),
  prices: prices.optional(),
  peakPrices: prices.optional(),
  images: z.boolean().optional(),
  wire: z.enum(['chat', 'anthropic']).optional(),
})

export const modelsSettingSchema = z.record(z.string(), modelEntrySchema)

/** The catalog overrides in a `models` setting that has passed `modelsSettingSchema`. */
export function modelOverridesOf(models: Record<string, unknown> | undefined): Record<string, ModelOverride> {
  const out: Record<string, ModelOverride> = {}
  for (const [id, entry] of Object.entries(models ?? {})) {
    const parsed = modelEntrySchema.safeParse(entry)
    if (!parsed.success) continue
    const { contextWindow, maxOutput, prices: p, peakPrices, images, wire } = parsed.data
    out[id] = {
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(maxOutput !== undefined ? { maxOutput } : {}),
      ...(p ? { prices: p } : {}),
      ...(peakPrices ? { peakPrices } : {}),
      ...(images !== undefined ? { images } : {}),
      ...(wire !== undefined ? { wire } : {}),
    }
  }
  return out
}

/** `userId` in settings (DeepSeek's `user_id` for this user's requests), checked: a bad one throws one sentence. */
export function userIdSettingOf(settings: Record<string, unknown>): string | undefined {
  return settings.userId === undefined ? undefined : checkedUserId(settings.userId, 'userId in settings')
}
