import type { Effort, ModelConfig } from './adapter.js'
import { isKnownModel, modelInfo, retiredModel, retiredSentence, type ModelOverride } from './catalog.js'
import { ModelError } from './errors.js'
import { fittedOutputCap, promptTokenEstimate } from './output-cap.js'

/** Adapter-wide settings that shape request bodies. Fixed for an adapter's life, so `body` stays pure. */
export interface BodySettings {
  /** The user's output cap, applied when the header is made (and for headers that carry no cap of their own). */
  maxOutputTokens?: number
  /** The user's catalog overrides (settings), consulted for the header's window, output ceiling and image support. */
  models?: Record<string, ModelOverride>
}

/**
 * The config a header logs: window, output ceiling (the model's maximum, lowered by the user's cap) and image
 * support filled in, so the body never needs the settings again. Fields already set are kept. Throws a ModelError
 * with one sentence for a retired model id.
 */
export function completeConfig(config: ModelConfig, settings: BodySettings): ModelConfig {
  const retired = retiredModel(config.model, settings.models)
  if (retired) throw new ModelError('invalid-request', retiredSentence(retired))
  const info = modelInfo(config.model, settings.models)
  const userCap = config.maxOutputTokens ?? settings.maxOutputTokens
  // An undescribed model's maximum is a guess; it is not sent as a ceiling (a guess above the real limit is a 400).
  const ceiling = described(config.model, settings) ? Math.min(info.maxOutput, userCap ?? Infinity) : userCap
  return {
    ...config,
    ...(ceiling !== undefined ? { maxOutputTokens: ceiling } : {}),
    contextWindow: config.contextWindow ?? info.contextWindow,
    images: config.images ?? info.images,
  }
}

/**
 * The output cap to send, given the size of the body without it: the header's ceiling (else the adapter's cap, else
 * the catalog's for a model Rein knows or the user described), fitted to the header's window when it records one
 * (every header Rein logs now; output-cap.ts). For an unknown model on a wire where the cap is optional it is left
 * out rather than guessed, since a guess above the real limit is a 400.
 */
export function outputCap(config: ModelConfig, settings: BodySettings, required: boolean, bodyBytes: number): number | undefined {
  const ceiling =
    config.maxOutputTokens ??
    settings.maxOutputTokens ??
    (described(config.model, settings) || required ? modelInfo(config.model, settings.models).maxOutput : undefined)
  if (ceiling === undefined) return undefined
  if (config.contextWindow === undefined) return ceiling
  return fittedOutputCap(ceiling, config.contextWindow, promptTokenEstimate(bodyBytes))
}

/** A model Rein knows, or one whose maximum output the user gave in settings. */
function described(model: string, settings: BodySettings): boolean {
  return isKnownModel(model) || settings.models?.[model]?.maxOutput !== undefined
}

export function acceptsImages(config: ModelConfig, settings: BodySettings): boolean {
  return config.images ?? modelInfo(config.model, settings.models).images
}

/** Whether an assistant message must carry reasoning (`""` when it had none) on the wire. */
export function mustPassReasoning(config: ModelConfig, hasToolCalls: boolean): boolean {
  if (config.effort === 'off') return false
  return hasToolCalls || config.passback === 'every-assistant'
}

/**
 * DeepSeek's thinking controls (guides/thinking_mode): `thinking.type` switches thinking on or off, and the effort
 * (`reasoning_effort` on the chat wire, `output_config.effort` on the Anthropic wire) takes `low`, `high` or `max`.
 * Rein's `off` is thinking disabled with no effort field at all.
 */
export function thinkingOf(effort: Effort): { type: 'enabled' | 'disabled'; effort?: 'low' | 'high' | 'max' } {
  return effort === 'off' ? { type: 'disabled' } : { type: 'enabled', effort }
}
