import type { Effort, ModelConfig, Wire } from './adapter.js'
import { isKnownModel, modelInfo, retiredModel, retiredSentence, type ModelOverride } from './catalog.js'
import { ModelError } from './errors.js'
import { fittedOutputCap, promptTokenEstimate } from './output-cap.js'
import { checkedUserId, defaultUserId } from './user-id.js'

/**
 * The user's settings that shape requests. They are read once, when a header is made, and written into its config
 * (`completeConfig`); a body is built from the header alone, so editing them later changes no logged request.
 */
export interface HeaderSettings {
  /** The user's output cap. */
  maxOutputTokens?: number
  /** The user's catalog overrides, for the window, the output ceiling and image support. */
  models?: Record<string, ModelOverride>
  /** `userId` in settings: DeepSeek's `user_id` for every request that does not set its own. */
  userId?: string
}

/**
 * The config a header logs: window, output ceiling (the model's maximum, lowered by the user's cap) and image
 * support filled in from the catalog and the settings, so the body never needs either again. Fields already set are
 * kept. Throws a ModelError with one sentence for a retired model id.
 *
 * An undescribed model's maximum is a guess, so on the chat wire (where `max_tokens` is optional) no ceiling is
 * recorded unless the user gave one: a guess above the real limit is a 400. The Anthropic wire requires
 * `max_tokens`, so there the guess is recorded, and the log still says every byte.
 *
 * The user id is the config's own (per agent), else the settings', else the per-user default; an invalid one throws
 * one sentence.
 */
export function completeConfig(config: ModelConfig, settings: HeaderSettings, wire: Wire): ModelConfig {
  const retired = retiredModel(config.model, settings.models)
  if (retired) throw new ModelError('invalid-request', retiredSentence(retired))
  const info = modelInfo(config.model, settings.models)
  const userCap = config.maxOutputTokens ?? settings.maxOutputTokens
  const described = isKnownModel(config.model) || settings.models?.[config.model]?.maxOutput !== undefined
  const ceiling = described
    ? Math.min(info.maxOutput, userCap ?? Infinity)
    : (userCap ?? (wire === 'anthropic' ? info.maxOutput : undefined))
  return {
    ...config,
    ...(ceiling !== undefined ? { maxOutputTokens: ceiling } : {}),
    contextWindow: config.contextWindow ?? info.contextWindow,
    images: config.images ?? info.images,
    userId:
      config.userId !== undefined
        ? checkedUserId(config.userId, "agent's userId")
        : settings.userId !== undefined
          ? checkedUserId(settings.userId, 'userId in settings')
          : defaultUserId(),
  }
}

/**
 * The output cap to send, given the size of the body without it: the header's ceiling, fitted to the header's
 * window (output-cap.ts). A function of the config alone. Headers logged before Rein recorded the ceiling and
 * window fall back to the built-in catalog, never to settings; for a model the catalog does not know, on a wire
 * where the cap is optional, the cap is left out rather than guessed.
 */
export function outputCap(config: ModelConfig, required: boolean, bodyBytes: number): number | undefined {
  const ceiling = config.maxOutputTokens ?? (isKnownModel(config.model) || required ? modelInfo(config.model).maxOutput : undefined)
  if (ceiling === undefined) return undefined
  if (config.contextWindow === undefined) return ceiling
  return fittedOutputCap(ceiling, config.contextWindow, promptTokenEstimate(bodyBytes))
}

/** Whether the body sends images: the header's record, else (headers from before it was recorded) the built-in catalog. */
export function acceptsImages(config: ModelConfig): boolean {
  return config.images ?? modelInfo(config.model).images
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
