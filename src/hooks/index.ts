import { homedir } from 'node:os'
import type { AgentApi } from '../agent/types.js'
import type { Extension } from '../agent/extensions.js'
import { loadHookCatalog, untrustedProblem } from './catalog.js'
import { createHooksExtension, type HooksHandle } from './extension.js'
import { DEFAULT_STOP_LIMITS } from './stop-guard.js'

export interface LoadHooksOptions {
  cwd: string
  /** REIN_HOME: Rein's user settings and `trusted-hooks.json`. */
  home: string
  /** The user's home directory, for `~/.claude` and `~/.codex`; `os.homedir()` when absent. */
  userHome?: string
  /** Trust every project hook found now, and record that trust (`--trust-project-hooks`). */
  trustProjectHooks?: boolean
  /** The environment hooks inherit; `process.env` when absent. */
  env?: NodeJS.ProcessEnv
  /** Consecutive Stop-hook continuations honoured per turn (default 8). */
  maxStopContinuations?: number
  /** Consecutive Stop-hook continuations with the same reason honoured per turn (default 3). */
  maxIdenticalStopReasons?: number
}

export interface LoadedHooks extends HooksHandle {
  extension: Extension<AgentApi>
  /** Malformed files, invalid matchers, unsupported events and untrusted definitions: one sentence each. */
  problems: string[]
}

/**
 * Loads Claude Code and Codex hook configurations for a session in `cwd` and returns them as one extension, plus
 * `runPreCompact` for the compaction code and `permissionAsked` for the permission prompt. Reading never throws:
 * everything skipped is in `problems`.
 */
export function loadHooks(options: LoadHooksOptions): LoadedHooks {
  const catalog = loadHookCatalog({
    cwd: options.cwd,
    home: options.home,
    userHome: options.userHome ?? homedir(),
    trustProjectHooks: options.trustProjectHooks,
  })
  const handle = createHooksExtension(
    { definitions: catalog.active, projectDir: catalog.projectDir, env: options.env ?? process.env },
    {
      maxContinuations: options.maxStopContinuations ?? DEFAULT_STOP_LIMITS.maxContinuations,
      maxIdenticalReasons: options.maxIdenticalStopReasons ?? DEFAULT_STOP_LIMITS.maxIdenticalReasons,
    },
  )
  return { ...handle, problems: [...catalog.problems, ...catalog.untrusted.map((definition) => untrustedProblem(definition, options.cwd))] }
}

export { loadHookCatalog, untrustedProblem, type HookCatalog } from './catalog.js'
export { recordTrust, trustFilePath } from './trust.js'
export { HOOK_EVENTS, type HookDefinition, type HookEvent } from './definitions.js'
export type { PreCompactResult, HooksHandle } from './extension.js'
