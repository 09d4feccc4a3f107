import { createReadGuard } from '../permissions/read-guard.js'
import { parseRule, type Rule } from '../permissions/rules.js'
import type { Refusal } from '../fs/read-gate.js'
import { readGuardOf, type ReadGuard } from '../tools/read-guard.js'
import type { ToolState } from '../tools/tool.js'
import { loadSettings } from './settings.js'

/** Where a guard applies: the working directory, `$REIN_HOME` (settings, Rein's home) and the home `~` stands for. */
export interface GuardPlace {
  cwd: string
  reinHome: string
  userHome: string
}

/**
 * The read guard the settings files alone define (their `Read` deny rules, hard links to what those cover, Rein's
 * home), for loaders that run without an agent's permission policy: the command and skill listings of the front ends,
 * a subagent's instruction and agent files. It is the guard `createReadGuard` builds for an agent, from the settings
 * as an untrusted workspace has them: deny rules all hold; a workspace's allow rules, which could only refuse less,
 * are left out. When a settings file cannot be read, the guard refuses every file and says why, since dropping its
 * deny rules could let through what the user denied.
 */
export function settingsReadGuard(options: GuardPlace): ReadGuard {
  let deny: Rule[]
  let allow: Rule[]
  try {
    const permissions = loadSettings(options.cwd, options.reinHome).permissions ?? {}
    deny = rules(permissions.deny)
    allow = rules(permissions.allow)
  } catch (error) {
    const why = `the settings that hold the Read deny rules could not be read (${(error as Error).message.replace(/\.$/, '')})`
    return { refuses: () => why, refusesLoading: () => why }
  }
  return createReadGuard({ deny, allow: () => allow, match: { cwd: options.cwd, home: options.userHome, workspaceTrusted: false }, reinHome: options.reinHome })
}

function rules(texts: readonly string[] | undefined): Rule[] {
  // loadSettings validated every rule, so none is an error here.
  return (texts ?? []).map(parseRule).filter((r): r is Rule => !('error' in r))
}

/**
 * The refusal every file Rein loads on its own passes (`src/fs/read-gate.ts`): the agent's own read guard when the
 * permission policy installed one in `state`, else the one the settings define (`settingsReadGuard`).
 */
export function loadingRefusal(state: ToolState | undefined, where: GuardPlace): Refusal {
  const guard = (state && readGuardOf(state)) ?? settingsReadGuard(where)
  return (absolute) => guard.refusesLoading(absolute)
}
