import { loadSettings } from '../../config/settings.js'
import { isKnownModel, KNOWN_MODEL_IDS, retiredModel, type ModelOverride } from '../../llm/catalog.js'
import { modelOverridesOf } from '../../llm/model-settings.js'
import { workspaceTrust } from '../../runtime/workspace-trust.js'

/** The models settings describe for a workspace; none when a settings file cannot be read (its problem is reported elsewhere). */
function overridesFor(cwd: string, home: string): Record<string, ModelOverride> {
  try {
    return modelOverridesOf(loadSettings(cwd, home, { workspaceTrusted: workspaceTrust({ cwd, home }).trusted }).models)
  } catch {
    return {}
  }
}

/** The ids `/model` accepts here: the catalog's, then those settings add, retired ones left out. */
export function validModelIds(overrides: Record<string, ModelOverride>): string[] {
  const ids = [...KNOWN_MODEL_IDS, ...Object.keys(overrides).filter((id) => !KNOWN_MODEL_IDS.includes(id))]
  return ids.filter((id) => !retiredModel(id, overrides))
}

/** The ids `/model` accepts in `cwd`, with the models its settings add. */
export function modelIdsFor(cwd: string, home: string): string[] {
  return validModelIds(overridesFor(cwd, home))
}

/**
 * Why `/model <id>` must refuse `id`, as one sentence naming the valid models; undefined when it may switch. A
 * retired id (unless settings describe it as a model of the user's own) and an id neither the catalog nor settings
 * know are refused at once, so the mistake shows now and not as the next request's failure. `claude*` names count as
 * known: DeepSeek's Anthropic wire maps them.
 */
export function modelRefusal(id: string, where: { cwd: string; home: string }): string | undefined {
  const overrides = overridesFor(where.cwd, where.home)
  const valid = validModelIds(overrides).join(', ')
  const retired = retiredModel(id, overrides)
  if (retired) return `DeepSeek retired ${id} on ${retired.retiredOn}; use one of ${valid} (${retired.replacement} replaces it).`
  if (isKnownModel(id) || overrides[id]) return undefined
  return `There is no model ${id.slice(0, 100)}; use one of ${valid} (or describe it under "models" in settings).`
}
