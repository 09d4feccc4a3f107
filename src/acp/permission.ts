import type { AgentContext, PermissionOption, RequestPermissionResponse, ToolCallContent } from '@agentclientprotocol/sdk'
import type { PermissionAnswer, PermissionAsker, PermissionRequest } from '../agent/types.js'
import { describeToolCall } from './tool-content.js'
import { permissionQuestion, toolLookup, type PermissionQuestion, type ToolLookup } from '../frontend/render/index.js'
import { REWIND_COMMAND } from '../checkpoints/rewind-types.js'

/** The three answers an editor offers, by option id. */
export const PERMISSION_OPTIONS = {
  allowOnce: 'allow-once',
  allowAlways: 'allow-always',
  rejectOnce: 'reject-once',
} as const

function optionsFor(request: PermissionRequest): PermissionOption[] {
  // A plan from exit_plan_mode (src/plan): allow-once approves into default, allow-always into accept-edits.
  if (request.call.name === 'exit_plan_mode') {
    return [
      { optionId: PERMISSION_OPTIONS.allowOnce, name: 'Approve the plan (ask before edits)', kind: 'allow_once' },
      { optionId: PERMISSION_OPTIONS.allowAlways, name: 'Approve the plan and accept edits', kind: 'allow_always' },
      { optionId: PERMISSION_OPTIONS.rejectOnce, name: 'Keep planning', kind: 'reject_once' },
    ]
  }
  // A rewind's question about files changed since Rein wrote them (src/checkpoints): overwrite them or keep them.
  if (request.call.name === REWIND_COMMAND) {
    return [
      { optionId: PERMISSION_OPTIONS.allowOnce, name: 'Overwrite them', kind: 'allow_once' },
      { optionId: PERMISSION_OPTIONS.rejectOnce, name: 'Keep them as they are', kind: 'reject_once' },
    ]
  }
  return [
    { optionId: PERMISSION_OPTIONS.allowOnce, name: 'Allow once', kind: 'allow_once' },
    {
      optionId: PERMISSION_OPTIONS.allowAlways,
      name: request.suggestedRule ? `Always allow ${request.suggestedRule}` : 'Always allow',
      kind: 'allow_always',
    },
    { optionId: PERMISSION_OPTIONS.rejectOnce, name: 'Reject', kind: 'reject_once' },
  ]
}

/**
 * What the editor shows inside the question: the change as a diff, computed before approval from the file as it is
 * now (ACP's `diff` content), or the whole command; then the reason Rein asks.
 */
export function questionContent(question: PermissionQuestion): ToolCallContent[] {
  const out: ToolCallContent[] = []
  if (question.change) out.push({ type: 'diff', path: question.change.path, oldText: question.change.oldText, newText: question.change.newText })
  else if (question.command !== undefined) out.push({ type: 'content', content: { type: 'text', text: fencedCommand(question.command) } })
  if (question.reason) out.push({ type: 'content', content: { type: 'text', text: question.reason } })
  return out
}

function fencedCommand(command: string): string {
  const longest = Math.max(2, ...Array.from(command.matchAll(/`+/g), (m) => m[0].length))
  const fence = '`'.repeat(longest + 1)
  return `${fence}sh\n${command}\n${fence}`
}

/** The agent's answer for the client's choice. A cancelled request, or an option id we never offered, denies. */
export function answerFor(response: RequestPermissionResponse, request: PermissionRequest): PermissionAnswer {
  if (response.outcome.outcome !== 'selected') return { outcome: 'deny', note: 'The permission request was cancelled.' }
  switch (response.outcome.optionId) {
    case PERMISSION_OPTIONS.allowOnce:
      return { outcome: 'allow-once' }
    case PERMISSION_OPTIONS.allowAlways:
      return request.suggestedRule ? { outcome: 'allow-always', rule: request.suggestedRule } : { outcome: 'allow-always' }
    default:
      return { outcome: 'deny' }
  }
}

/**
 * A permission asker that puts the question to the editor with `session/request_permission`. When the turn is
 * cancelled while the question is open, the request is cancelled (`$/cancel_request`) and the call is denied
 * without waiting for the editor. A client that fails the request denies the call too, and the failure is logged.
 */
export function editorPermissionAsker(
  client: AgentContext,
  sessionId: string,
  cwd: string,
  log: (line: string) => void,
  tools: ToolLookup = toolLookup(),
): PermissionAsker {
  return async (request, signal) => {
    if (signal.aborted) return { outcome: 'deny', note: 'The turn was cancelled.' }
    const tool = tools(request.call.name)
    const display = describeToolCall(tool, request.call.name, request.call.arguments, cwd)
    const question = await permissionQuestion(request, tool, cwd)
    if (signal.aborted) return { outcome: 'deny', note: 'The turn was cancelled.' }
    // A rewind is no tool call the editor knows: its question is the whole title.
    if (request.call.name === REWIND_COMMAND) display.title = request.reason
    try {
      const response = await client.request(
        'session/request_permission',
        {
          sessionId,
          toolCall: {
            toolCallId: request.call.callId,
            // A subagent's call is not one the editor was told of: the title names the child that asks.
            title: request.subagent ? `Subagent ${request.subagent.agent} (${request.subagent.description}): ${display.title}` : display.title,
            kind: display.kind,
            status: 'pending',
            locations: display.locations,
            rawInput: display.rawInput,
            content: request.call.name === REWIND_COMMAND ? [] : questionContent(question),
          },
          options: optionsFor(request),
        },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      )
      return answerFor(response, request)
    } catch (error) {
      if (!signal.aborted) log(`permission request for ${request.call.name} failed: ${String(error)}`)
      return { outcome: 'deny', note: signal.aborted ? 'The turn was cancelled.' : 'The editor did not answer.' }
    }
  }
}
