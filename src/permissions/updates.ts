import type { PermissionMode } from '../agent/types.js'
import { parseRule } from './rules.js'

/** Where Claude Code keeps a rule a permission answer adds: Rein's settings file of that layer, or the session only. */
export type RuleDestination = 'session' | 'local' | 'project' | 'user'

/** Claude Code's `PermissionUpdateDestination`s as Rein's: `cliArg` rules last as long as the run, as `session` ones. */
const DESTINATIONS: Record<string, RuleDestination> = {
  session: 'session',
  cliArg: 'session',
  localSettings: 'local',
  projectSettings: 'project',
  userSettings: 'user',
}

/** Claude Code's mode names as Rein's (`dontAsk` has no standing Rein mode; it is the SDK's `setPermissionMode`). */
const MODES: Record<string, PermissionMode> = { default: 'default', acceptEdits: 'accept-edits', plan: 'plan', bypassPermissions: 'bypass' }

/** What Rein does with one answer's `updatedPermissions`: allow rules to add, a mode to switch to, and why parts were not used. */
export interface PermissionUpdates {
  allow: { rule: string; destination: RuleDestination }[]
  mode?: PermissionMode
  /** One sentence per update left out: an unknown destination, a kind Rein does not apply, a rule it cannot read. */
  ignored: string[]
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Reads the `updatedPermissions` of a permission answer (an SDK host's `canUseTool`, a PermissionRequest hook) as
 * Claude Code's `PermissionUpdate[]`. `addRules` with `behavior: "allow"` is what "allow always" does and is applied;
 * `setMode` switches the mode. Everything else is named in `ignored` and changes nothing; `by` names who answered.
 */
export function readPermissionUpdates(raw: unknown, by: string): PermissionUpdates {
  const out: PermissionUpdates = { allow: [], ignored: [] }
  if (raw === undefined) return out
  if (!Array.isArray(raw)) {
    out.ignored.push(`The updatedPermissions from ${by} is not a list of permission updates, so it was ignored.`)
    return out
  }
  for (const update of raw) {
    const type = isRecord(update) && typeof update.type === 'string' ? update.type.slice(0, 40) : undefined
    if (!isRecord(update) || !type) {
      out.ignored.push(`An updatedPermissions entry from ${by} has no "type", so it was ignored.`)
      continue
    }
    const destination = typeof update.destination === 'string' ? DESTINATIONS[update.destination] : undefined
    if (!destination) {
      const named = JSON.stringify(String(update.destination ?? '')).slice(0, 60)
      out.ignored.push(`The ${type} update from ${by} names the destination ${named}, which is none of ${Object.keys(DESTINATIONS).join(', ')}, so it was ignored.`)
      continue
    }
    if (type === 'setMode') {
      const mode = typeof update.mode === 'string' ? MODES[update.mode] : undefined
      if (mode) out.mode = mode
      else out.ignored.push(`The setMode update from ${by} names no mode Rein has (${Object.keys(MODES).join(', ')}), so it was ignored.`)
      continue
    }
    if (type !== 'addRules' || update.behavior !== 'allow') {
      const what = type === 'addRules' ? `addRules with behavior ${JSON.stringify(String(update.behavior)).slice(0, 40)}` : type
      out.ignored.push(`Rein applies only addRules (allow) and setMode from a permission answer; the ${what} update from ${by} was ignored.`)
      continue
    }
    for (const value of Array.isArray(update.rules) ? update.rules : [undefined]) {
      const rule = isRecord(value) && typeof value.toolName === 'string' ? (typeof value.ruleContent === 'string' ? `${value.toolName}(${value.ruleContent})` : value.toolName) : undefined
      const parsed = rule === undefined ? undefined : parseRule(rule)
      if (rule === undefined || !parsed || 'error' in parsed) {
        out.ignored.push(`A rule in the addRules update from ${by} is not a permission rule${parsed && 'error' in parsed ? ` (${parsed.error})` : ''}, so it was ignored.`)
        continue
      }
      out.allow.push({ rule, destination })
    }
  }
  return out
}
