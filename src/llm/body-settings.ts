import type { Effort, ModelConfig } from './adapter.js'
import { isKnownModel, modelInfo, type ModelInfo } from './catalog.js'

/** Adapter-wide settings that shape request bodies. Fixed for an adapter's life, so `body` stays pure. */
export interface BodySettings {
  /** Output cap used when the request's config names none. */
  maxOutputTokens?: number
  /** The user's catalog overrides (settings), consulted for the output cap and image support. */
  models?: Record<string, Partial<ModelInfo>>
}

/**
 * The output cap to send: the request's, else the adapter's, else the catalog's for a model Rein knows or the user
 * described. For an unknown model on a wire where the cap is optional it is left out (undefined) rather than
 * guessed, since a guess above the model's real limit is a 400.
 */
export function outputCap(config: ModelConfig, settings: BodySettings, required: boolean): number | undefined {
  if (config.maxOutputTokens !== undefined) return config.maxOutputTokens
  if (settings.maxOutputTokens !== undefined) return settings.maxOutputTokens
  const described = isKnownModel(config.model) || settings.models?.[config.model]?.maxOutput !== undefined
  if (!described && !required) return undefined
  return modelInfo(config.model, settings.models).maxOutput
}

export function acceptsImages(model: string, settings: BodySettings): boolean {
  return modelInfo(model, settings.models).images
}

/**
 * DeepSeek's thinking controls (guides/thinking_mode): `thinking.type` switches thinking on or off, and the effort
 * (`reasoning_effort` on the chat wire, `output_config.effort` on the Anthropic wire) takes `low`, `high` or `max`.
 * Rein's `off` is thinking disabled with no effort field at all.
 */
export function thinkingOf(effort: Effort): { type: 'enabled' | 'disabled'; effort?: 'low' | 'high' | 'max' } {
  return effort === 'off' ? { type: 'disabled' } : { type: 'enabled', effort }
}
