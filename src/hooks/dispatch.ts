import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { ExtensionContext } from '../agent/extensions.js'
import type { EventDataMap, JsonValue } from '../session/events.js'
import { displayPath } from './config-file.js'
import type { HookDefinition, HookEvent } from './definitions.js'
import { writeTranscript } from './claude-transcript.js'
import { hookPayload, type SessionFacts } from './payload.js'
import { runHookCommand } from './runner.js'
import { childEnv } from '../tools/child-env.js'
import { readVerdict, type HookVerdict } from './verdict.js'

/** Claude Code's default: a handler without its own `timeout` may run ten minutes. */
export const DEFAULT_TIMEOUT_SEC = 600

/** The most stderr a `hook/result` keeps; enough to read what went wrong, small enough for the log. */
const STDERR_LOGGED = 2000

/** What every run needs besides the event: the definitions that may run and the environment they run in. */
export interface HookRuntime {
  definitions: readonly HookDefinition[]
  projectDir: string
  /** The environment hooks inherit, before `CLAUDE_PROJECT_DIR` is added and Rein's secrets are removed. */
  env: NodeJS.ProcessEnv
  /** More secret variable names (`secretEnv` in settings); a handler receives one only if its `env` names it. */
  secretEnv?: readonly string[]
  /** Applies a PermissionRequest allow's `updatedPermissions` (rules, mode); `by` names the hook. Absent: they are ignored. */
  applyPermissionUpdates?: (raw: unknown, by: string) => void
}

/** One handler's run and what it said. */
export interface HookOutcome {
  definition: HookDefinition
  verdict: HookVerdict
}

/**
 * What a matcher is tested against: a name (tool, session source, compaction trigger), or for a tool its Claude
 * Code name and, when Codex has a tool for the same job, Codex's name, which matchers in Codex-format files match too
 * (`apply_patch` for edit and write).
 */
export type HookTarget = string | { name: string; codex?: string } | undefined

/**
 * The handlers that run for an event and target, in load order. Identical commands run once: the first in load
 * order is kept, with its timeout.
 */
export function selectHandlers(definitions: readonly HookDefinition[], event: HookEvent, target: HookTarget): HookDefinition[] {
  const name = typeof target === 'object' ? target.name : target
  const codex = typeof target === 'object' ? target.codex : undefined
  const matches = (definition: HookDefinition): boolean =>
    definition.matches(name) || (codex !== undefined && definition.file.dialect === 'codex' && definition.matches(codex))
  const seen = new Set<string>()
  return definitions.filter((definition) => {
    if (definition.event !== event || !matches(definition) || seen.has(definition.command)) return false
    seen.add(definition.command)
    return true
  })
}

export function sessionFacts(agent: ExtensionContext, turn?: number): SessionFacts {
  return {
    sessionId: agent.session.id,
    transcriptPath: agent.session.path ?? null,
    cwd: agent.cwd,
    permissionMode: agent.permissionMode,
    model: agent.model,
    turn,
  }
}

/**
 * Runs every matching handler in parallel in the session's working directory and returns their outcomes in load
 * order. Each run is logged (`hook/invoked` before it starts, `hook/result` after); a failed run is told to the user
 * and never blocks; `systemMessage`s are shown to the user.
 */
export async function runHooks(
  runtime: HookRuntime,
  agent: ExtensionContext,
  event: HookEvent,
  target: HookTarget,
  fields: Record<string, JsonValue>,
  turn?: number,
): Promise<HookOutcome[]> {
  const handlers = selectHandlers(runtime.definitions, event, target)
  if (handlers.length === 0) return []
  const facts = { ...sessionFacts(agent, turn), transcriptPath: currentTranscript(agent) }
  const runs = handlers.map((definition) => {
    const id = randomUUID()
    agent.record('hook/invoked', { id, event, handler: definition.command, sourceFile: definition.file.path })
    const timeoutMs = (definition.timeoutSec ?? DEFAULT_TIMEOUT_SEC) * 1000
    const input = JSON.stringify(hookPayload(event, definition.file.dialect, facts, fields))
    const env = childEnv(runtime.env, {
      secretEnv: runtime.secretEnv,
      pass: definition.env,
      set: { ...definition.file.variables, CLAUDE_PROJECT_DIR: runtime.projectDir },
    })
    const run = definition.run ? definition.run(input, timeoutMs) : runHookCommand({ command: definition.command, cwd: agent.cwd, env, input, timeoutMs })
    return run.then((result) => ({ id, definition, result, verdict: readVerdict(event, result, timeoutMs) }))
  })
  const outcomes: HookOutcome[] = []
  for (const { id, definition, result, verdict } of await Promise.all(runs)) {
    const data: EventDataMap['hook/result'] = {
      id,
      event,
      decision: verdict.decision,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
    }
    const stderr = result.stderr.trim()
    if (stderr) data.stderr = stderr.length > STDERR_LOGGED ? `${stderr.slice(0, STDERR_LOGGED)}…` : stderr
    const reason = verdict.failure ?? verdict.stop ?? verdict.block ?? verdict.permissionReason
    if (reason) data.reason = reason
    agent.record('hook/result', data)
    const name = `The ${event} hook ${handlerName(definition, agent.cwd)}`
    if (verdict.failure) agent.notify('warning', `${name} ${verdict.failure}; Rein went on without it.`)
    if (verdict.systemMessage) agent.notify('info', verdict.systemMessage)
    outcomes.push({ definition, verdict })
  }
  return outcomes
}

/**
 * `transcript_path`: the session in Claude Code's transcript format (src/hooks/claude-transcript.ts), brought up to
 * date now so the hook reads what has happened so far; null for a session the store keeps no file for. When the
 * transcript cannot be written the user is warned and hooks get null.
 */
function currentTranscript(agent: ExtensionContext): string | null {
  const log = agent.session.path
  if (!log) return null
  try {
    return writeTranscript(log, agent.session.surface(), { sessionId: agent.session.id, cwd: agent.cwd, model: agent.model, version: reinVersion() })
  } catch (error) {
    agent.notify('warning', `The Claude Code transcript for hooks could not be written (${(error as Error).message}); hooks get no transcript_path.`)
    return null
  }
}

let version: string | undefined
function reinVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version
  return version
}

/** How a person reads a handler in notices: its command and the file it came from. */
export function handlerName(definition: HookDefinition, cwd: string): string {
  return `"${definition.command}" from ${displayPath(definition.file.path, cwd)}`
}
