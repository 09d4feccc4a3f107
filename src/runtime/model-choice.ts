import type { Wire } from '../llm/adapter.js'
import { DEFAULT_MODEL, modelInfo, retiredModel, retiredSentence, type ModelInfo, type ModelOverride } from '../llm/catalog.js'
import { modelOverridesOf } from '../llm/model-settings.js'
import type { Settings } from '../config/settings.js'
import type { CompactionSettings } from '../compaction/compactor.js'
import type { Session } from '../session/session.js'

/** The user's catalog additions and overrides (`models` in settings). */
export function modelOverrides(settings: Settings): Record<string, ModelOverride> {
  return modelOverridesOf(settings.models)
}

/** A retired model id fails before any session is touched or request sent, with the replacement named. */
export function refuseRetired(model: string | undefined, settings: Settings): void {
  const retired = model === undefined ? undefined : retiredModel(model, modelOverrides(settings))
  if (retired) throw new Error(retiredSentence(retired))
}

/**
 * The model a session runs with: the flag, else the setting, else the one a resumed session ran with, else the
 * default; and the wire its requests use (the `wire` setting over the catalog's).
 */
export function chooseModel(flag: string | undefined, settings: Settings, session: Session): { id: string; info: ModelInfo; wire: Wire } {
  const id = flag ?? settings.model ?? session.last('request/header')?.data.config.model ?? DEFAULT_MODEL
  refuseRetired(id, settings)
  const info = modelInfo(id, modelOverrides(settings))
  return { id, info, wire: settings.wire ?? info.wire ?? 'chat' }
}

/** The compaction settings for `model`: `compaction` in settings, with `models.<id>.compactAt` as its ratio. */
export function compactionSettings(settings: Settings, model: string): Partial<CompactionSettings> {
  const compactAt = settings.models?.[model]?.compactAt
  return { ...settings.compaction, ...(compactAt !== undefined ? { ratio: compactAt } : {}) }
}
