import type { PermissionAnswer, PermissionAsker } from '../../../agent/types.js'
import { peerName } from '../../../tools/tool.js'
import type { ControlChannel } from './channel.js'
import { permissionResult } from './wire.js'

/**
 * The permission prompt of `--permission-prompt-tool stdio`: whenever Rein would ask a person, it asks the SDK
 * program with a `can_use_tool` request (the SDK calls its `canUseTool`). `allow` runs the call, with `updatedInput`
 * in place of the model's arguments when given; `deny` refuses it with the host's message, and with `interrupt` also
 * ends the turn (`onInterrupt`). An allow's `updatedPermissions` go to `applyUpdates` ("allow always"). No timeout: a person may be answering, and the turn's cancellation withdraws it.
 * An answer that is not a `PermissionResult` refuses the call and says why.
 */
export function sdkPermissionAsker(
  channel: ControlChannel,
  onInterrupt: () => void,
  report: (message: string) => void,
  applyUpdates: (raw: unknown, by: string) => void,
): PermissionAsker {
  return async (request, signal): Promise<PermissionAnswer> => {
    const input = request.call.input !== null && typeof request.call.input === 'object' && !Array.isArray(request.call.input) ? request.call.input : {}
    const answer = await channel.request(
      {
        subtype: 'can_use_tool',
        tool_name: peerName(request.call.name, request.call.tool),
        input,
        tool_use_id: request.call.callId,
        decision_reason: request.reason,
        ...(request.suggestedRule
          ? { permission_suggestions: [{ type: 'addRules', rules: [ruleValue(request.suggestedRule)], behavior: 'allow', destination: 'session' }] }
          : {}),
        ...(request.subagent ? { agent_id: request.subagent.session } : {}),
      },
      { timeoutMs: 2 ** 31 - 1, signal },
    )
    const parsed = permissionResult.safeParse(answer)
    if (!parsed.success) {
      const note = `The SDK's answer to can_use_tool for ${request.call.name} is not a PermissionResult (behavior "allow" or "deny"), so the call was refused.`
      report(note)
      return { outcome: 'deny', note }
    }
    const result = parsed.data
    if (result.behavior === 'allow') {
      if (result.updatedPermissions !== undefined) applyUpdates(result.updatedPermissions, "the SDK host's canUseTool")
      return result.updatedInput ? { outcome: 'allow-once', arguments: JSON.stringify(result.updatedInput), by: "the SDK host's canUseTool" } : { outcome: 'allow-once' }
    }
    if (result.interrupt) setImmediate(onInterrupt)
    return { outcome: 'deny', ...(result.message ? { note: result.message } : {}) }
  }
}

/** `Bash(npm test)` as the SDK's `PermissionRuleValue`. */
function ruleValue(rule: string): { toolName: string; ruleContent?: string } {
  const match = /^([^(]+)\((.*)\)$/s.exec(rule)
  return match ? { toolName: match[1], ruleContent: match[2] } : { toolName: rule }
}
