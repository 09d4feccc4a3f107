import { homedir } from 'node:os'
import type { SettingSource } from '../config/settings.js'
import type { Extension } from '../agent/extensions.js'
import { loadHookCatalog, type ExtraHookFile } from './catalog.js'
import type { HookDefinition } from './definitions.js'
import { createHooksExtension, type HooksHandle } from './extension.js'
import { DEFAULT_STOP_LIMITS } from './stop-guard.js'

export interface LoadHooksOptions {
  cwd: string
  /** REIN_HOME: Rein's user settings and `trusted-hooks.json`. */
  home: string
  /** The user's home directory, for `~/.claude` and `~/.codex`; `os.homedir()` when absent. */
  userHome?: string
  /** The user trusts the workspace (`src/trust/`): every project hook runs. Otherwise only those trusted one by one. */
  workspaceTrusted?: boolean
  /** More secret variable names (`secretEnv` in settings), withheld from hooks that do not name them in `env`. */
  secretEnv?: readonly string[]
  /** The environment hooks inherit; `process.env` when absent. */
  env?: NodeJS.ProcessEnv
  /** Consecutive Stop-hook continuations honoured per turn (default 8). */
  maxStopContinuations?: number
  /** Consecutive Stop-hook continuations with the same reason honoured per turn (default 3). */
  maxIdenticalStopReasons?: number
  /** Hook configurations from source roots (plugins), loaded after the files. */
  extra?: readonly ExtraHookFile[]
  /** `--setting-sources`: only the hook files of these layers are read; all when absent. */
  sources?: readonly SettingSource[]
  /** Hooks from `--settings`, the user's own: read after every file and trusted. */
  flagHooks?: { hooks: unknown; from: string }
  /** Applies a PermissionRequest allow's `updatedPermissions`; without it they are not read. */
  applyPermissionUpdates?: (raw: unknown, by: string) => void
}

export interface LoadedHooks extends HooksHandle {
  extension: Extension
  /** Malformed files, invalid matchers and unsupported events: one sentence each. */
  problems: string[]
  /**
   * Project definitions that did not run because neither the workspace nor they alone are trusted. The caller names
   * them in the one workspace-trust notice (`untrustedNotice`), not one sentence each.
   */
  untrusted: HookDefinition[]
}

/**
 * Loads Claude Code and Codex hook configurations for a session in `cwd` and returns them as one extension, plus
 * `runPreCompact` for the compaction code. Reading never throws:
 * everything skipped is in `problems`.
 */
export function loadHooks(options: LoadHooksOptions): LoadedHooks {
  const catalog = loadHookCatalog({
    cwd: options.cwd,
    home: options.home,
    userHome: options.userHome ?? homedir(),
    workspaceTrusted: options.workspaceTrusted,
    extra: options.extra,
    ...(options.sources ? { sources: options.sources } : {}),
    ...(options.flagHooks ? { flagHooks: options.flagHooks } : {}),
  })
  const handle = createHooksExtension(
    {
      definitions: catalog.active,
      projectDir: catalog.projectDir,
      env: options.env ?? process.env,
      secretEnv: options.secretEnv,
      ...(options.applyPermissionUpdates ? { applyPermissionUpdates: options.applyPermissionUpdates } : {}),
    },
    {
      maxContinuations: options.maxStopContinuations ?? DEFAULT_STOP_LIMITS.maxContinuations,
      maxIdenticalReasons: options.maxIdenticalStopReasons ?? DEFAULT_STOP_LIMITS.maxIdenticalReasons,
    },
  )
  return { ...handle, problems: catalog.problems, untrusted: catalog.untrusted }
}

export { loadHookCatalog, untrustedProblem, type ExtraHookFile, type HookCatalog } from './catalog.js'
export { recordTrust, trustFilePath } from './trust.js'
export { HOOK_EVENTS, type HookDefinition, type HookEvent } from './definitions.js'
export type { PreCompactResult, HooksHandle } from './extension.js'
