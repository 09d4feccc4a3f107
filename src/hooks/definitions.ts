import type { HookProcessResult } from './runner.js'

/**
 * The vocabulary of hook configuration: which events Rein runs, where a definition came from, and the definition
 * itself as loaded from a Claude Code or Codex file.
 */

/** The events Rein runs, named as Claude Code and Codex name them. Every other event name is reported and ignored. */
export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'Stop',
  'PreCompact',
  'SessionEnd',
  'Notification',
  'SubagentStart',
  'SubagentStop',
] as const
export type HookEvent = (typeof HOOK_EVENTS)[number]

export function isHookEvent(name: string): name is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(name)
}

/**
 * Which format a file is written in. It decides how a matcher is read (Codex matchers are always regular
 * expressions) and which extra payload fields a hook receives (Codex adds `turn_id` and `model`).
 */
export type Dialect = 'claude' | 'codex'

/** `user` files live in the user's home and are trusted as they are; `project` files need the user's trust. */
export type Scope = 'user' | 'project'

/** A file hooks may be defined in. */
export interface HookFile {
  /** Absolute path. */
  path: string
  dialect: Dialect
  scope: Scope
  /**
   * A file from a source root (a plugin's `hooks/hooks.json`): `${NAME}` of these variables is replaced in its
   * commands when read, and each is exported to its hooks (`CLAUDE_PLUGIN_ROOT`).
   */
  variables?: Readonly<Record<string, string>>
}

/** One command handler, as written in one file. Identity for trust is `hash`; identity for dedup is `command`. */
export interface HookDefinition {
  event: HookEvent
  /** The matcher as written; `''` when absent. */
  matcher: string
  /** The command as written; `$CLAUDE_PROJECT_DIR` is left for the shell to expand from the exported variable. */
  command: string
  /** The handler's own timeout in seconds, when it set one. */
  timeoutSec?: number
  /** Secret variables this handler receives (`"env": ["GITHUB_TOKEN"]`); hooks get no secret it does not name. */
  env?: string[]
  file: HookFile
  /** Position in load order (files in discovery order, then entries in file order). Results combine in this order. */
  order: number
  /** SHA-256 of the definition and its file's path: what `trusted-hooks.json` records. */
  hash: string
  /** Whether this handler runs for the given target (tool name, session source, compaction trigger). */
  matches(target: string | undefined): boolean
  /**
   * A handler that is not a command (an Agent SDK program's hook callback): given the payload and the time limit, it
   * answers as a command would, with its output as `stdout`. Absent for every handler read from a file.
   */
  run?(input: string, timeoutMs: number): Promise<HookProcessResult>
}
