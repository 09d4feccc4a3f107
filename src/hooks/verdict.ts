import type { JsonValue } from '../session/events.js'
import type { HookEvent } from './definitions.js'
import type { HookProcessResult } from './runner.js'

/**
 * What one hook run said, read from its exit code and output, before any event gives it meaning. Fields a hook did
 * not set are absent. A run that failed (crash, timeout, bad JSON, exit code other than 0 and 2) has `failure` and
 * nothing else that acts: the action goes ahead.
 */
export interface HookVerdict {
  /** `block` for exit 2 or `"decision": "block"`; the text is stderr or `reason`. */
  block?: string
  /** `"continue": false`: the turn should end; the text is `stopReason` (possibly empty). */
  stop?: string
  permission?: 'allow' | 'deny' | 'ask'
  permissionReason?: string
  updatedInput?: Record<string, JsonValue>
  /** A PermissionRequest allow's `updatedPermissions`, as written (read by src/permissions/updates.ts). */
  updatedPermissions?: unknown
  /** Text that becomes `context/message`s: `additionalContext`, or plain stdout where the event allows it. */
  context: string[]
  /** Shown to the user, never to the model. */
  systemMessage?: string
  /** One sentence for the user saying the hook failed and the action went ahead. */
  failure?: string
  /** The decision word the log records. */
  decision: string
}

/** Events whose plain (non-JSON) stdout on exit 0 becomes context, as in Claude Code. */
const PLAIN_STDOUT_IS_CONTEXT: ReadonlySet<HookEvent> = new Set(['SessionStart', 'UserPromptSubmit'])

/** Events an exit 2 cannot block; their stderr is shown to the user instead. */
const CANNOT_BLOCK: ReadonlySet<HookEvent> = new Set(['SessionStart', 'SessionEnd', 'Notification', 'SubagentStart'])

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The first line of a hook's stderr, cut to a readable length, for one-sentence messages. */
export function stderrSummary(stderr: string, limit = 300): string {
  const line = stderr.trim().split('\n')[0] ?? ''
  return line.length > limit ? `${line.slice(0, limit)}…` : line
}

function decisionWord(verdict: Omit<HookVerdict, 'decision'>): string {
  if (verdict.failure !== undefined) return 'error'
  if (verdict.stop !== undefined) return 'stop'
  if (verdict.block !== undefined) return 'block'
  if (verdict.permission) return verdict.permission
  if (verdict.updatedInput) return 'rewrite'
  if (verdict.context.length) return 'context'
  return 'none'
}

function withDecision(verdict: Omit<HookVerdict, 'decision'>): HookVerdict {
  return { ...verdict, decision: decisionWord(verdict) }
}

/**
 * Reads one run as Claude Code defines it. Exit 0: stdout starting with `{` is JSON, other stdout is context for
 * SessionStart and UserPromptSubmit and ignored elsewhere. Exit 2: block, reason from stderr. Anything else,
 * including a timeout, a signal and JSON that does not parse: a non-blocking failure the user is told about.
 */
export function readVerdict(event: HookEvent, run: HookProcessResult, timeoutMs: number): HookVerdict {
  if (run.spawnError !== undefined) return { context: [], failure: `could not be started (${run.spawnError})`, decision: 'error' }
  if (run.timedOut) {
    return { context: [], failure: `timed out after ${timeoutMs / 1000} s and was stopped`, decision: 'timeout' }
  }
  if (run.exitCode === null) return { context: [], failure: `was killed by ${run.signal ?? 'a signal'}`, decision: 'error' }
  if (run.exitCode === 2) {
    const reason = run.stderr.trim()
    if (CANNOT_BLOCK.has(event)) return withDecision({ context: [], systemMessage: reason || undefined })
    return withDecision({ context: [], block: reason || `A ${event} hook blocked this without giving a reason.` })
  }
  if (run.exitCode !== 0) {
    const detail = stderrSummary(run.stderr)
    return { context: [], failure: `exited with code ${run.exitCode}${detail ? `: ${detail}` : ''}`, decision: 'error' }
  }
  const stdout = run.stdout.trim()
  if (!stdout.startsWith('{')) {
    const text = run.stdout.replace(/[\r\n]+$/, '')
    return withDecision({ context: PLAIN_STDOUT_IS_CONTEXT.has(event) && stdout !== '' ? [text] : [] })
  }
  let output: unknown
  try {
    output = JSON.parse(stdout)
  } catch {
    return { context: [], failure: 'printed output that starts with "{" but is not valid JSON, so it was ignored', decision: 'error' }
  }
  return withDecision(readJsonOutput(event, isRecord(output) ? output : {}))
}

/** The JSON fields both peers define; unknown fields are ignored, as the peers ignore them. */
function readJsonOutput(event: HookEvent, output: Record<string, unknown>): Omit<HookVerdict, 'decision'> {
  const verdict: Omit<HookVerdict, 'decision'> = { context: [] }
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)
  if (output.continue === false) verdict.stop = text(output.stopReason) ?? ''
  if (typeof output.systemMessage === 'string' && output.systemMessage !== '') verdict.systemMessage = output.systemMessage
  if (output.decision === 'block') {
    verdict.block = text(output.reason) || `A ${event} hook blocked this without giving a reason.`
  } else if (output.decision === 'approve' && event === 'PreToolUse') {
    // The older PreToolUse form, still written by many scripts: `approve` is allow.
    verdict.permission = 'allow'
    verdict.permissionReason = text(output.reason)
  }
  const specific = output.hookSpecificOutput
  if (isRecord(specific) && (specific.hookEventName === undefined || specific.hookEventName === event)) {
    const decision = specific.permissionDecision
    if (event === 'PreToolUse' && (decision === 'allow' || decision === 'deny' || decision === 'ask')) {
      verdict.permission = decision
      verdict.permissionReason = text(specific.permissionDecisionReason)
    }
    if (event === 'PreToolUse' && isRecord(specific.updatedInput)) {
      verdict.updatedInput = specific.updatedInput as Record<string, JsonValue>
    }
    // PermissionRequest answers the question a person would have been asked: `decision.behavior` allow or deny.
    const answer = specific.decision
    if (event === 'PermissionRequest' && isRecord(answer) && (answer.behavior === 'allow' || answer.behavior === 'deny')) {
      verdict.permission = answer.behavior
      verdict.permissionReason = text(answer.message)
      if (answer.behavior === 'allow' && isRecord(answer.updatedInput)) verdict.updatedInput = answer.updatedInput as Record<string, JsonValue>
      if (answer.behavior === 'allow' && answer.updatedPermissions !== undefined) verdict.updatedPermissions = answer.updatedPermissions
    }
    if (typeof specific.additionalContext === 'string' && specific.additionalContext !== '') {
      verdict.context.push(specific.additionalContext)
    }
  }
  return verdict
}
