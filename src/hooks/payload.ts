import { isAbsolute, resolve } from 'node:path'
import { textOf } from '../llm/messages.js'
import type { JsonValue } from '../session/events.js'
import type { PermissionMode } from '../agent/types.js'
import type { ToolOutput } from '../tools/tool.js'
import type { Dialect, HookEvent } from './definitions.js'

/** Claude Code's spelling of each permission mode. */
const PEER_PERMISSION_MODES: Readonly<Record<PermissionMode, string>> = {
  default: 'default',
  'accept-edits': 'acceptEdits',
  plan: 'plan',
  bypass: 'bypassPermissions',
}

/** Facts about the session every payload carries. */
export interface SessionFacts {
  sessionId: string
  /** The session in Claude Code's transcript format (src/hooks/claude-transcript.ts); `null` for a session kept only in memory. */
  transcriptPath: string | null
  cwd: string
  permissionMode: PermissionMode
  model: string
  /** The running turn, when there is one: Codex's `turn_id` is `<session id>:<turn>`. */
  turn?: number
}

/** The JSON object a hook reads on stdin, in the dialect of the file that defined it. */
export function hookPayload(
  event: HookEvent,
  dialect: Dialect,
  facts: SessionFacts,
  fields: Record<string, JsonValue>,
): Record<string, JsonValue> {
  const payload: Record<string, JsonValue> = {
    session_id: facts.sessionId,
    transcript_path: facts.transcriptPath,
    cwd: facts.cwd,
    permission_mode: PEER_PERMISSION_MODES[facts.permissionMode] ?? facts.permissionMode,
    hook_event_name: event,
    ...fields,
  }
  if (dialect === 'codex') {
    payload.model = facts.model
    if (facts.turn !== undefined) payload.turn_id = `${facts.sessionId}:${facts.turn}`
  }
  return payload
}

function toJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue
}

/**
 * A tool's input as the peers present it: the parsed arguments (or `{}` when they did not parse), with a relative
 * `file_path` made absolute, since Claude Code always hands hooks absolute file paths.
 */
export function toolInput(input: unknown, rawArguments: string, cwd: string): Record<string, JsonValue> {
  let value: unknown = input
  if (value === undefined) {
    try {
      value = JSON.parse(rawArguments)
    } catch {
      // Arguments that are not JSON reach the hook as an empty input; the tool itself reports the bad arguments.
      value = {}
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {}
  const object = toJson(value) as Record<string, JsonValue>
  if (typeof object.file_path === 'string' && !isAbsolute(object.file_path)) object.file_path = resolve(cwd, object.file_path)
  return object
}

/**
 * What a tool returned, shaped for PostToolUse. Rein's tools return text, so every response has that text as
 * `content`; `Bash` adds it as `stdout`, and file tools add `filePath` and `success`, the fields scripts written for
 * Claude Code read most.
 */
export function toolResponse(peerName: string, input: Record<string, JsonValue>, result: ToolOutput): Record<string, JsonValue> {
  const text = textOf(result.content)
  const response: Record<string, JsonValue> = { content: text, is_error: result.isError === true }
  if (peerName === 'Bash') {
    response.stdout = text
    response.stderr = ''
    response.interrupted = false
  }
  if (typeof input.file_path === 'string') {
    response.filePath = input.file_path
    response.success = result.isError !== true
  }
  return response
}
