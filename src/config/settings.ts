import { existsSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import type { Effort, Wire } from '../llm/adapter.js'
import { writeFileAtomicSync } from '../fs/atomic-write.js'
import { readConfigFile, type GateFolder } from '../fs/read-gate.js'
import { modelEntrySchema } from '../llm/model-settings.js'
import type { PermissionMode } from '../agent/types.js'
import { parseRule } from '../permissions/rules.js'
import { JsonSyntaxError, parseJsonWithLines } from './json-with-lines.js'
import { LIMIT_CEILINGS, lowerOnlyLimits, type IgnoredLimit } from './limits.js'

/**
 * Rein's settings: the merge of the user, project and local files (`loadSettings`). Keys this module does not know
 * are kept for the modules that own them (models, hooks, MCP servers).
 */
export interface Settings {
  permissions?: {
    allow?: string[]
    ask?: string[]
    deny?: string[]
    defaultMode?: PermissionMode
    /** More directories that count as the workspace for write and edit. */
    additionalDirectories?: string[]
  }
  model?: string
  effort?: Effort
  /** Environment variables never passed to commands the model runs, besides the built-in list (src/tools/child-env.ts). */
  secretEnv?: string[]
  /** Variables whose names look like secrets that bash commands still receive; never Rein's own (model key, store). */
  passEnv?: string[]
  webFetch?: { allowPrivate?: boolean }
  /** Catalog additions and overrides (src/llm/model-settings.ts), plus `compactAt`: one model's compaction ratio. */
  models?: Record<string, ModelSetting>
  /** Which wire every model uses, over the catalog's choice. */
  wire?: Wire
  /** When and how much to compact (docs/compaction.md); ranges are checked by the compactor. */
  compaction?: { ratio?: number; keepRatio?: number; trimAboveTokens?: number; trimKeepChars?: number }
  hooks?: unknown
  /** Bounds on Stop-hook continuations per turn (docs/hooks.md): consecutive, and consecutive with the same reason. */
  stopHooks?: { maxContinuations?: number; maxIdenticalReasons?: number }
  mcpServers?: unknown
  /**
   * Subagents (docs/subagents.md): how deep children may nest (1: children cannot start children), how many run at
   * once, how many one turn and one run may start at every depth, and how many model requests one child's turn may
   * make. Defaults in src/config/limits.ts; an untrusted project may only lower them.
   */
  subagents?: { maxDepth?: number; parallel?: number; maxPerTurn?: number; maxPerRun?: number; maxSteps?: number }
  /** Checkpoints (docs/checkpoints.md): on or off, how many sessions and days of snapshots to keep, the file size limit. */
  checkpoints?: CheckpointSettings
  /** The sandbox (docs/sandbox.md): read per layer and narrowed by src/sandbox/policy.ts, never merged here. */
  sandbox?: unknown
  /** Claude Code's `enabledPlugins`: `{"name@marketplace": true | false}` (src/plugins/sources.ts reads it per file). */
  enabledPlugins?: Record<string, unknown>
  /**
   * How sessions get their titles (docs/configuration.md, "Session titles"): `prompt` (the default) from the first
   * prompt's words, `model` with one small request to the cheapest model once the first turn has answered. `model`
   * spends money, so an untrusted project file cannot turn it on (src/config/limits.ts); it may turn it off.
   */
  sessionTitles?: 'prompt' | 'model'
  /** The terminal UI (docs/tui.md): its colours, and how it gets attention when a turn ends or a question waits. */
  tui?: { theme?: 'auto' | 'dark' | 'light'; notifications?: 'auto' | 'bell' | 'osc9' | 'osc777' | 'off' }
  [key: string]: unknown
}

/** A settings file Rein cannot use. The message names the file and line and says what to fix; Rein must not start. */
export class SettingsError extends Error {
  readonly code = 'SettingsError'
  constructor(
    message: string,
    readonly file: string,
    readonly line?: number,
  ) {
    super(message)
    this.name = 'SettingsError'
  }
}

/** Claude Code's spellings of the modes, accepted so a copied settings file works. */
const MODE_ALIASES: Record<string, PermissionMode> = { acceptEdits: 'accept-edits', bypassPermissions: 'bypass' }

const ruleList = z.array(z.string())
const modelSettingSchema = modelEntrySchema.extend({ compactAt: z.number().optional() })
export type ModelSetting = z.infer<typeof modelSettingSchema>
/** A count that must be a whole number of at least 1 when set. */
const count = z.number().int().min(1)
const settingsSchema = z.looseObject({
  permissions: z
    .looseObject({
      allow: ruleList.optional(),
      ask: ruleList.optional(),
      deny: ruleList.optional(),
      defaultMode: z.enum(['default', 'accept-edits', 'plan', 'bypass', 'acceptEdits', 'bypassPermissions']).optional(),
      additionalDirectories: z.array(z.string()).optional(),
    })
    .optional(),
  model: z.string().optional(),
  effort: z.enum(['off', 'low', 'high', 'max']).optional(),
  secretEnv: z.array(z.string()).optional(),
  passEnv: z.array(z.string()).optional(),
  webFetch: z.looseObject({ allowPrivate: z.boolean().optional() }).optional(),
  models: z.record(z.string(), modelSettingSchema).optional(),
  wire: z.enum(['chat', 'anthropic']).optional(),
  compaction: z
    .looseObject({
      ratio: z.number().optional(),
      keepRatio: z.number().optional(),
      trimAboveTokens: z.number().optional(),
      trimKeepChars: z.number().optional(),
    })
    .optional(),
  stopHooks: z.looseObject({ maxContinuations: count.optional(), maxIdenticalReasons: count.optional() }).optional(),
  store: z.looseObject({ url: z.string().optional() }).optional(),
  enabledPlugins: z.record(z.string(), z.unknown()).optional(),
  subagents: z
    .looseObject({
      maxDepth: z.number().int().min(0).max(LIMIT_CEILINGS['subagents.maxDepth']!).optional(),
      parallel: count.optional(),
      maxPerTurn: count.max(LIMIT_CEILINGS['subagents.maxPerTurn']!).optional(),
      maxPerRun: count.optional(),
      maxSteps: count.optional(),
    })
    .optional(),
  sessionTitles: z.enum(['prompt', 'model']).optional(),
  tui: z
    .looseObject({ theme: z.enum(['auto', 'dark', 'light']).optional(), notifications: z.enum(['auto', 'bell', 'osc9', 'osc777', 'off']).optional() })
    .optional(),
  checkpoints: z
    .looseObject({
      enabled: z.boolean().optional(),
      keepSessions: z.number().int().min(0).optional(),
      keepDays: z.number().min(0).optional(),
      maxFileBytes: count.optional(),
    })
    .optional(),
})

/** `checkpoints` in settings; defaults in src/checkpoints/settings.ts. */
export interface CheckpointSettings {
  /** false: no snapshots, no shadow repository, no retention. */
  enabled?: boolean
  /** Keep the snapshots of this many most recent sessions per workspace. */
  keepSessions?: number
  /** Keep the snapshots of every session whose last snapshot is younger than this many days. */
  keepDays?: number
  /** Files larger than this (bytes) are left out of snapshots. */
  maxFileBytes?: number
}

/** Claude Code's settings layers, as `--setting-sources` names them: user, project (committable), local (personal). */
export type SettingSource = 'user' | 'project' | 'local'
export const SETTING_SOURCES: readonly SettingSource[] = ['user', 'project', 'local']

/** The settings files in the order they refine each other: user, project (committable), local (personal). */
export function settingsFiles(cwd: string, home: string): string[] {
  return [path.join(home, 'settings.json'), path.join(cwd, '.rein', 'settings.json'), path.join(cwd, '.rein', 'settings.local.json')]
}

/**
 * Loads and merges the settings files that exist. Later files refine earlier ones: objects merge key by key, arrays
 * concatenate (so a project cannot drop a user's deny rule), other values are replaced. Any malformed file throws a
 * `SettingsError` naming the file and line: silently dropping a rule could allow what the user denied.
 *
 * Until the workspace is trusted (`workspaceTrusted`, see `src/trust/`), the project files only narrow: their
 * allow rules, widening default mode, extra directories and private-network switch are dropped (`inertProjectSettings`),
 * and a limit they set takes effect only when it lowers what holds already (`lowerOnlyLimits`); their deny and ask
 * rules always apply. MCP servers are kept: the MCP loader judges them with their own trust.
 */
export function loadSettings(cwd: string, home: string, options: { workspaceTrusted?: boolean } = {}): Settings {
  return loadSettingsReport(cwd, home, options).settings
}

/** `loadSettings`, with the limits untrusted project files tried to raise and that did not take effect. */
export function loadSettingsReport(
  cwd: string,
  home: string,
  options: { workspaceTrusted?: boolean; sources?: readonly SettingSource[] } = {},
): { settings: Settings; ignoredLimits: IgnoredLimit[] } {
  let merged: Record<string, unknown> = {}
  const ignoredLimits: IgnoredLimit[] = []
  const seen = new Set<string>()
  const userFile = path.join(home, 'settings.json')
  // `settingsFiles` lists one file per layer, in SETTING_SOURCES order; `sources` keeps only the layers named.
  for (const [i, file] of settingsFiles(cwd, home).entries()) {
    if (options.sources && !options.sources.includes(SETTING_SOURCES[i])) continue
    if (!existsSync(file)) continue
    const real = realpathSync(file)
    if (seen.has(real)) continue
    seen.add(real)
    let settings = readSettingsFile(file, file === userFile ? ANYWHERE : { dir: cwd, base: cwd })
    if (file !== userFile && !options.workspaceTrusted) {
      const lowered = lowerOnlyLimits(inertProjectSettings(settings), merged as Settings, real)
      settings = lowered.settings
      ignoredLimits.push(...lowered.ignored)
    }
    merged = mergeSettings(merged, settings)
  }
  return { settings: merged as Settings, ignoredLimits }
}

/** The folder of a file that may be anywhere: the gate's other checks still hold. */
const ANYWHERE: GateFolder = { dir: '/', base: '/' }

/** Modes an untrusted project may still set: they only narrow what runs without asking. */
export const NARROWING_MODES: readonly unknown[] = ['default', 'plan']

/**
 * A project file's settings with everything that widens what is allowed removed (deny and ask rules stay), without
 * its `checkpoints` block and without `passEnv`. Limits are judged apart (`lowerOnlyLimits`).
 */
export function inertProjectSettings(settings: Settings): Settings {
  const out: Settings = { ...settings }
  if (settings.permissions) {
    const { allow: _allow, additionalDirectories: _dirs, defaultMode, ...narrowing } = settings.permissions
    out.permissions = defaultMode && NARROWING_MODES.includes(defaultMode) ? { ...narrowing, defaultMode } : narrowing
  }
  if (settings.webFetch?.allowPrivate) out.webFetch = { ...settings.webFetch, allowPrivate: false }
  // Passing a secret on to commands widens what they can reach.
  delete out.passEnv
  // Checkpoints are the user's undo: a workspace cannot turn them off, shrink them or prune them until trusted.
  delete out.checkpoints
  return out
}

/**
 * Reads and validates one settings file. `folder` is where it must really be (a project's `.rein/` files: the
 * workspace, so a link out of it is refused); the user's own file may link anywhere (dotfile managers link it). Either
 * way it must be a regular file, read without blocking on a pipe, at most 1 MiB (`readConfigFile`). A file the gate
 * refuses stops Rein with one sentence, like a malformed one: skipping it could drop a deny rule the user relies on.
 */
export function readSettingsFile(file: string, folder: GateFolder = ANYWHERE): Settings {
  const read = readConfigFile(file, folder)
  if (read.kind === 'absent') return {}
  if (read.kind === 'skipped') {
    throw new SettingsError(`Settings file ${file} was not read: ${read.reason}. Replace it with a regular file and start Rein again.`, file)
  }
  const text = read.bytes.toString('utf8')
  if (text.trim() === '') return {}
  let parsed
  try {
    parsed = parseJsonWithLines(text)
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error
    throw new SettingsError(
      `Settings file ${file} is not valid JSON at line ${error.line}, column ${error.column}: ${error.message}. Fix it and start Rein again.`,
      file,
      error.line,
    )
  }
  const lineOf = (p: PropertyKey[]) => {
    for (let n = p.length; n >= 0; n--) {
      const line = parsed.lines.get(p.slice(0, n).map(String).join('.'))
      if (line !== undefined) return line
    }
    return 1
  }
  const checked = settingsSchema.safeParse(parsed.value)
  if (!checked.success) {
    const issue = checked.error.issues[0]
    const line = lineOf(issue.path)
    const where = issue.path.length ? issue.path.join('.') : 'the top level'
    throw new SettingsError(`Settings file ${file}, line ${line}: ${where}: ${issue.message}. Fix it and start Rein again.`, file, line)
  }
  const settings = checked.data as Settings & { permissions?: { defaultMode?: string } }
  for (const list of ['allow', 'ask', 'deny'] as const) {
    settings.permissions?.[list]?.forEach((text, i) => {
      const rule = parseRule(text)
      if ('error' in rule) {
        const line = lineOf(['permissions', list, i])
        throw new SettingsError(`Settings file ${file}, line ${line}: ${rule.error}. Fix it and start Rein again.`, file, line)
      }
    })
  }
  const mode = settings.permissions?.defaultMode
  if (mode && mode in MODE_ALIASES) settings.permissions!.defaultMode = MODE_ALIASES[mode]
  return settings
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** `later` refines `earlier`: objects merge, arrays concatenate without repeating equal strings, the rest replaces. */
export function mergeSettings(earlier: Record<string, unknown>, later: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...earlier }
  for (const [key, value] of Object.entries(later)) {
    const before = out[key]
    if (Array.isArray(before) && Array.isArray(value)) {
      out[key] = [...before, ...value.filter((v) => typeof v !== 'string' || !before.includes(v))]
    } else if (isPlainObject(before) && isPlainObject(value)) {
      out[key] = mergeSettings(before, value)
    } else {
      out[key] = value
    }
  }
  return out
}

/**
 * Adds `rule` to `permissions.allow` in `<cwd>/.rein/settings.local.json` (the personal file), for "allow always".
 * The file is rewritten atomically; a malformed existing file throws rather than being replaced.
 */
export function addLocalAllowRule(cwd: string, rule: string): void {
  addRuleTo(path.join(cwd, '.rein', 'settings.local.json'), { dir: cwd, base: cwd }, 'allow', rule)
}

/**
 * Adds `rule` to `permissions.<list>` of one settings file (a permission answer's `updatedPermissions`), rewriting it
 * atomically and owner-only; a malformed existing file throws rather than being replaced. `folder` is where the file
 * must really be, as for `readSettingsFile`.
 */
export function addRuleTo(file: string, folder: GateFolder, list: 'allow' | 'ask' | 'deny', rule: string): void {
  const parsedRule = parseRule(rule)
  if ('error' in parsedRule) throw new SettingsError(`Cannot save the rule: ${parsedRule.error}.`, file)
  const current: Record<string, unknown> = { ...readSettingsFile(file, folder) }
  const permissions = isPlainObject(current.permissions) ? { ...current.permissions } : {}
  const rules = Array.isArray(permissions[list]) ? [...(permissions[list] as string[])] : []
  if (rules.includes(rule)) return
  rules.push(rule)
  permissions[list] = rules
  current.permissions = permissions
  // Settings files stay owner-only (0600), as the personal file always was written.
  writeFileAtomicSync(file, `${JSON.stringify(current, null, 2)}\n`, { mode: 0o600 })
}
