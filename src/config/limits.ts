import { modelInfo } from '../llm/catalog.js'
import type { Settings } from './settings.js'

/**
 * Every numeric limit a settings file can set that bounds what a run may spend or start, with its default. A limit
 * bounds a bill or a fork: an untrusted project file may only lower it (`lowerOnlyLimits`); raising it needs
 * workspace trust or the user's own file. docs/trust.md ("Limits and who may raise them") lists them for people.
 */
export const LIMITS = {
  /** How deep subagents nest: 1, children cannot start children. */
  'subagents.maxDepth': 1,
  /** Children of one parent running at once. */
  'subagents.parallel': 4,
  /** Child sessions, at every depth, one top-level turn may start. */
  'subagents.maxPerTurn': 16,
  /** Child sessions, at every depth, one run (one opened session) may start. */
  'subagents.maxPerRun': 100,
  /** Model requests of one child's turn. */
  'subagents.maxSteps': 100,
  /** Consecutive Stop-hook continuations of one turn (the same default as src/hooks/stop-guard.ts). */
  'stopHooks.maxContinuations': 8,
  /** Consecutive Stop-hook continuations with the same reason. */
  'stopHooks.maxIdenticalReasons': 3,
} as const

export type LimitName = keyof typeof LIMITS

/**
 * The ceiling no settings file may pass, for the limits that have one: the schema refuses a larger value. The
 * per-turn cap on child sessions is hard: even the user's own file cannot lift it past this.
 */
export const LIMIT_CEILINGS: Partial<Record<LimitName, number>> = { 'subagents.maxPerTurn': 256, 'subagents.maxDepth': 8 }

/** A limit's value in effect: the setting, else the default. */
export function limitOf(settings: Settings, name: LimitName): number {
  const value = read(settings, name)
  return typeof value === 'number' ? value : LIMITS[name]
}

/** The subagent limits in effect (defaults filled in), for src/subagents. */
export interface SubagentLimits {
  maxDepth: number
  parallel: number
  maxPerTurn: number
  maxPerRun: number
  maxSteps: number
}

export function subagentLimits(settings: Settings): SubagentLimits {
  return {
    maxDepth: limitOf(settings, 'subagents.maxDepth'),
    parallel: limitOf(settings, 'subagents.parallel'),
    maxPerTurn: limitOf(settings, 'subagents.maxPerTurn'),
    maxPerRun: limitOf(settings, 'subagents.maxPerRun'),
    maxSteps: limitOf(settings, 'subagents.maxSteps'),
  }
}

/** A value an untrusted project file set that did not take effect, and the value that held instead. */
export interface IgnoredLimit {
  /** The setting's dotted name: `subagents.maxDepth`, `models.deepseek-flash.maxOutput`, `models.x.prices`. */
  name: string
  /** The same as keys, for a model id that holds a dot. */
  path: readonly string[]
  file: string
  value: unknown
  /** What held instead (a number), or undefined when the value was dropped without one (prices). */
  kept?: number
}

/**
 * The limits `project` (a project file's settings) sets above `before` (what the files read before it settled, else
 * the default), each named with what holds instead. Also for `models`: a project may lower a model's `maxOutput` and
 * `contextWindow` but not raise them past the catalog's (or the user's), and may not set prices, which would hide
 * what a run costs, nor turn on model-made session titles (`sessionTitles`: a request per session). With `before`
 * empty this is what a project raises over the defaults: its trust grants.
 */
export function raisedLimits(project: Settings, before: Settings, file: string): IgnoredLimit[] {
  const raised: IgnoredLimit[] = []
  for (const name of Object.keys(LIMITS) as LimitName[]) {
    const value = read(project, name)
    if (value === undefined) continue
    const kept = limitOf(before, name)
    if (typeof value !== 'number' || value > kept) raised.push({ name, path: name.split('.'), file, value, kept })
  }
  // A title request per session is a spend the user turns on; a project may only turn it off (DESIGN.md §6b).
  if (project.sessionTitles !== undefined && project.sessionTitles !== 'prompt' && before.sessionTitles !== project.sessionTitles) {
    raised.push({ name: 'sessionTitles', path: ['sessionTitles'], file, value: project.sessionTitles })
  }
  for (const [id, entry] of Object.entries(project.models ?? {})) {
    if (typeof entry !== 'object' || entry === null) continue
    if (entry.prices !== undefined) raised.push({ name: `models.${id}.prices`, path: ['models', id, 'prices'], file, value: entry.prices })
    if (entry.peakPrices !== undefined) raised.push({ name: `models.${id}.peakPrices`, path: ['models', id, 'peakPrices'], file, value: entry.peakPrices })
    const known = { ...modelInfo(id), ...before.models?.[id] }
    for (const field of ['maxOutput', 'contextWindow'] as const) {
      const value = entry[field]
      if (value !== undefined && value > known[field]) raised.push({ name: `models.${id}.${field}`, path: ['models', id, field], file, value, kept: known[field] })
    }
  }
  return raised
}

/**
 * `project` (an untrusted project file's settings) with every raised limit removed (`raisedLimits` against
 * `before`), and the removals named: the value in effect stays the one from before.
 */
export function lowerOnlyLimits(project: Settings, before: Settings, file: string): { settings: Settings; ignored: IgnoredLimit[] } {
  const ignored = raisedLimits(project, before, file)
  const out: Settings = structuredClone(project)
  for (const ignoredLimit of ignored) {
    const path = [...ignoredLimit.path]
    const field = path.pop()!
    let section: Record<string, unknown> | undefined = out
    for (const key of path) section = section?.[key] as Record<string, unknown> | undefined
    if (section) delete section[field]
  }
  return { settings: out, ignored }
}

function read(settings: Settings, name: LimitName): unknown {
  const [block, key] = name.split('.')
  const section = settings[block]
  return typeof section === 'object' && section !== null ? (section as Record<string, unknown>)[key] : undefined
}
