import type { EnteringMessage, Extension, ExtensionContext, PreToolDecision, PostToolOutcome, ToolCallInfo } from '../agent/extensions.js'
import type { PermissionAnswer } from '../agent/types.js'
import { textOf } from '../llm/messages.js'
import type { JsonValue, Source } from '../session/events.js'
import { peerName, type ToolOutput } from '../tools/tool.js'
import type { HookDefinition, HookEvent } from './definitions.js'
import { handlerName, runHooks, type HookOutcome, type HookRuntime } from './dispatch.js'
import { toolInput, toolResponse } from './payload.js'
import { StopGuard, type StopLimits } from './stop-guard.js'

/** What the compaction code learns from PreCompact hooks. */
export interface PreCompactResult {
  /** Set when a hook blocked compaction: its reason, to show the user. */
  blocked?: string
}

/** The hooks as the agent uses them: the extension, and the one event the loop does not see on its own. */
export interface HooksHandle {
  extension: Extension
  /** Runs PreCompact hooks; call before compacting. `trigger` is `manual` (a command) or `auto`. */
  runPreCompact(trigger: 'manual' | 'auto', customInstructions?: string): Promise<PreCompactResult>
  /** Runs SubagentStart hooks in the parent's session (matcher: the agent type); returns the context they add for the child. */
  runSubagentStart(info: SubagentInfo): Promise<string[]>
  /**
   * Runs SubagentStop hooks in the parent's session (matcher: the agent type). Returns the reason to continue the
   * child when a hook blocked and the Stop limits allow another continuation; otherwise undefined.
   */
  runSubagentStop(info: SubagentInfo & { transcriptPath: string | undefined; continuations: number; lastMessage: string }): Promise<string | undefined>
}

/** A subagent as its hooks are told of it (Claude Code's `agent_id`, `agent_type`). */
export interface SubagentInfo {
  agentId: string
  agentType: string
}

/** The `source` of everything hooks put into the session. Never rendered to the model. */
function hookSource(event: HookEvent, definition: HookDefinition): Source {
  return { kind: 'hook', event, command: definition.command, file: definition.file.path }
}

function contextEntries(event: HookEvent, outcomes: HookOutcome[]): { content: { type: 'text'; text: string }[]; source: Source }[] {
  return outcomes.flatMap(({ definition, verdict }) =>
    verdict.context.map((text) => ({ content: [{ type: 'text' as const, text }], source: hookSource(event, definition) })),
  )
}

function injectContext(agent: ExtensionContext, event: HookEvent, outcomes: HookOutcome[]): void {
  for (const entry of contextEntries(event, outcomes)) agent.inject(entry.content, entry.source)
}

/** The reasons of every hook that blocked, or said `continue: false`, in load order. */
function reasonsOf(outcomes: HookOutcome[], pick: (outcome: HookOutcome) => string | undefined): string[] {
  return outcomes.map(pick).filter((reason): reason is string => reason !== undefined)
}

/** Reasons joined one per line; `fallback` when every hook gave an empty one (`continue: false` alone). */
function joinReasons(reasons: string[], fallback: string): string {
  return reasons.filter((text) => text !== '').join('\n') || fallback
}

/** Why a PreToolUse hook refused the call, if it did: exit 2 / `decision: block`, or `permissionDecision: deny`. */
function denialOf(outcome: HookOutcome, cwd: string): string | undefined {
  const { verdict } = outcome
  if (verdict.block !== undefined) return verdict.block
  if (verdict.permission !== 'deny') return undefined
  return verdict.permissionReason ?? `Denied by the PreToolUse hook ${handlerName(outcome.definition, cwd)}.`
}

/**
 * The Claude Code / Codex events on Rein's extension points. Each extension point runs the matching handlers and
 * turns their verdicts into the point's decision; see docs/hooks.md for the whole mapping.
 */
export function createHooksExtension(runtime: HookRuntime, limits: StopLimits): HooksHandle {
  const guard = new StopGuard(limits)
  const subagentGuards = new Map<string, StopGuard>()
  let bound: ExtensionContext | undefined
  const bind = (agent: ExtensionContext): ExtensionContext => (bound = agent)

  const toolFields = (call: ToolCallInfo, agent: ExtensionContext) => {
    const peer = peerName(call.name, call.tool)
    const target = { name: peer, codex: call.tool?.peerNames?.codex }
    const input = toolInput(call.input, call.arguments, agent.cwd)
    return { peer, target, input, fields: { tool_name: peer, tool_input: input, tool_use_id: call.callId } as Record<string, JsonValue> }
  }

  /** `continue: false` from a tool event ends the turn: the call is refused or blocked, and the turn ends `blocked`. */
  const stopTurn = (agent: ExtensionContext, event: HookEvent, reasons: string[]): string => {
    const reason = joinReasons(reasons, `A ${event} hook stopped the turn.`)
    agent.notify('warning', reason)
    agent.stopTurn(reason)
    return reason
  }

  const extension: Extension = {
    name: 'hooks',

    async sessionStart(agent, source) {
      bind(agent)
      const outcomes = await runHooks(runtime, agent, 'SessionStart', source, { source })
      injectContext(agent, 'SessionStart', outcomes)
    },

    async preStep(step, entering, agent) {
      bind(agent)
      const prompts = entering.filter((message) => message.type === 'user/message')
      if (prompts.length === 0) return
      const prompt = prompts.map((message) => textOf(message.content)).join('\n\n')
      const outcomes = await runHooks(runtime, agent, 'UserPromptSubmit', undefined, { prompt }, step.turn)
      const stops = reasonsOf(outcomes, (o) => o.verdict.stop)
      if (stops.length) return { action: 'reject', reason: joinReasons(stops, 'A UserPromptSubmit hook stopped the turn.') }
      const blocks = reasonsOf(outcomes, (o) => o.verdict.block)
      if (blocks.length) return { action: 'reject', reason: blocks.join('\n') }
      const context = contextEntries('UserPromptSubmit', outcomes).map((entry): EnteringMessage => ({ type: 'context/message', ...entry }))
      if (context.length === 0) return
      return { action: 'enter', messages: [...entering, ...context] }
    },

    async preTool(call, agent): Promise<PreToolDecision | void> {
      bind(agent)
      const { target, fields } = toolFields(call, agent)
      const outcomes = await runHooks(runtime, agent, 'PreToolUse', target, fields, call.turn)
      injectContext(agent, 'PreToolUse', outcomes)
      const stops = reasonsOf(outcomes, (o) => o.verdict.stop)
      if (stops.length) return { action: 'deny', reason: stopTurn(agent, 'PreToolUse', stops) }
      const denials = reasonsOf(outcomes, (o) => denialOf(o, agent.cwd))
      if (denials.length) return { action: 'deny', reason: denials.join('\n') }
      const asks = outcomes.filter((o) => o.verdict.permission === 'ask')
      if (asks.length) {
        const reason = asks.map((o) => o.verdict.permissionReason ?? `The PreToolUse hook ${handlerName(o.definition, agent.cwd)} asks for confirmation.`)
        return { action: 'ask', reason: reason.join('\n') }
      }
      const rewrites = outcomes.filter((o) => o.verdict.updatedInput)
      const allowReason = outcomes.find((o) => o.verdict.permission === 'allow')?.verdict.permissionReason
      if (rewrites.length) {
        // Several rewrites combine field by field over the model's own arguments, in load order: a later hook's
        // value for a field wins. Fields no hook names keep the model's text (a relative path stays relative).
        const original = typeof call.input === 'object' && call.input !== null && !Array.isArray(call.input) ? call.input : {}
        const merged = rewrites.reduce<Record<string, unknown>>((acc, o) => ({ ...acc, ...o.verdict.updatedInput }), { ...original })
        return { action: 'rewrite', arguments: JSON.stringify(merged), reason: allowReason }
      }
      if (outcomes.some((o) => o.verdict.permission === 'allow')) return { action: 'allow', reason: allowReason }
    },

    async postTool(call: ToolCallInfo, result: ToolOutput, agent): Promise<PostToolOutcome | void> {
      bind(agent)
      const { peer, target, input, fields } = toolFields(call, agent)
      const failed = result.isError === true
      const event: HookEvent = failed ? 'PostToolUseFailure' : 'PostToolUse'
      if (failed) fields.error = textOf(result.content)
      else fields.tool_response = toolResponse(peer, input, result)
      const outcomes = await runHooks(runtime, agent, event, target, fields, call.turn)
      const outcome: PostToolOutcome = {}
      const context = contextEntries(event, outcomes)
      if (context.length) outcome.context = context
      const stops = reasonsOf(outcomes, (o) => o.verdict.stop)
      const blocks = reasonsOf(outcomes, (o) => o.verdict.block)
      if (stops.length) outcome.decision = { action: 'block', reason: stopTurn(agent, event, stops) }
      else if (blocks.length) outcome.decision = { action: 'block', reason: blocks.join('\n') }
      return outcome.decision || outcome.context ? outcome : undefined
    },

    async turnStopping(info, agent) {
      bind(agent)
      const lastMessage = info.lastAssistant ? textOf(info.lastAssistant.content) : ''
      const fields = { stop_hook_active: info.continuations > 0, last_assistant_message: lastMessage }
      const outcomes = await runHooks(runtime, agent, 'Stop', undefined, fields, info.turn)
      injectContext(agent, 'Stop', outcomes)
      const stops = outcomes.filter((o) => o.verdict.stop !== undefined)
      const blocking = outcomes.filter((o) => o.verdict.block !== undefined)
      if (stops.length || blocking.length === 0) {
        guard.clear()
        for (const o of stops) if (o.verdict.stop) agent.notify('warning', o.verdict.stop)
        return
      }
      const combined = blocking.map((o) => o.verdict.block).join('\n\n')
      const ruling = guard.rule(info.turn, info.continuations, combined)
      if (!ruling.steer) {
        const names = blocking.map((o) => handlerName(o.definition, agent.cwd)).join(', ')
        agent.notify('warning', `Rein ended the turn although the Stop hook ${names} blocked it again, because ${ruling.why}.`)
        guard.clear()
        return
      }
      for (const o of blocking) agent.steer(o.verdict.block as string, hookSource('Stop', o.definition))
    },

    /**
     * PermissionRequest hooks answer in the person's place: any deny (`decision.behavior: "deny"` or exit 2) wins,
     * else an allow allows once; with neither the question goes to the front end (or is refused without one).
     */
    async answerPermission(request, agent): Promise<PermissionAnswer | void> {
      bind(agent)
      const { target, fields } = toolFields(request.call, agent)
      const suggestion = request.suggestedRule ? permissionSuggestion(request.suggestedRule) : undefined
      if (suggestion) fields.permission_suggestions = [suggestion]
      const outcomes = await runHooks(runtime, agent, 'PermissionRequest', target, fields, request.call.turn)
      const denials = reasonsOf(outcomes, (o) =>
        o.verdict.block ?? (o.verdict.permission === 'deny' ? (o.verdict.permissionReason ?? `Denied by the PermissionRequest hook ${handlerName(o.definition, agent.cwd)}.`) : undefined),
      )
      if (denials.length) return { outcome: 'deny', note: denials.join('\n') }
      const allows = outcomes.filter((o) => o.verdict.permission === 'allow')
      if (!allows.length) return
      // An allow's rule updates apply as "allow always" would; its `updatedInput`s merge over the model's arguments
      // in load order, as PreToolUse rewrites do, and the agent checks the result against the tool's schema.
      for (const o of allows) {
        if (o.verdict.updatedPermissions !== undefined) runtime.applyPermissionUpdates?.(o.verdict.updatedPermissions, `the PermissionRequest hook ${handlerName(o.definition, agent.cwd)}`)
      }
      const rewrites = allows.filter((o) => o.verdict.updatedInput)
      if (!rewrites.length) return { outcome: 'allow-once' }
      const original = typeof request.call.input === 'object' && request.call.input !== null && !Array.isArray(request.call.input) ? request.call.input : {}
      const merged = rewrites.reduce<Record<string, unknown>>((acc, o) => ({ ...acc, ...o.verdict.updatedInput }), { ...original })
      const by = `the PermissionRequest hook ${rewrites.map((o) => handlerName(o.definition, agent.cwd)).join(', ')}`
      return { outcome: 'allow-once', arguments: JSON.stringify(merged), by }
    },

    /** Notification hooks for a permission prompt. They run beside the prompt, never holding it up or failing the call. */
    permissionAsked(request, agent) {
      bind(agent)
      const peer = peerName(request.call.name, request.call.tool)
      const fields = { message: `Rein needs your permission to use ${peer}`, title: 'Permission needed', notification_type: 'permission_prompt' }
      runHooks(runtime, agent, 'Notification', 'permission_prompt', fields, request.call.turn).catch((error: unknown) => {
        agent.notify('warning', `Notification hooks could not run: ${error instanceof Error ? error.message : String(error)}.`)
      })
    },

    async sessionEnd(agent, reason) {
      bind(agent)
      await runHooks(runtime, agent, 'SessionEnd', reason, { reason })
    },
  }

  return {
    extension,
    async runPreCompact(trigger, customInstructions = '') {
      if (!bound) return {}
      const outcomes = await runHooks(runtime, bound, 'PreCompact', trigger, { trigger, custom_instructions: customInstructions })
      const reasons = reasonsOf(outcomes, (o) => o.verdict.block ?? o.verdict.stop)
      return reasons.length ? { blocked: joinReasons(reasons, 'A PreCompact hook blocked compaction.') } : {}
    },
    async runSubagentStart(info) {
      if (!bound) return []
      const fields = { agent_id: info.agentId, agent_type: info.agentType }
      const outcomes = await runHooks(runtime, bound, 'SubagentStart', info.agentType, fields)
      return outcomes.flatMap((o) => o.verdict.context)
    },
    async runSubagentStop(info) {
      if (!bound) return undefined
      const agent = bound
      const fields = {
        agent_id: info.agentId,
        agent_type: info.agentType,
        agent_transcript_path: info.transcriptPath ?? null,
        stop_hook_active: info.continuations > 0,
        last_assistant_message: info.lastMessage,
      }
      const outcomes = await runHooks(runtime, agent, 'SubagentStop', info.agentType, fields)
      const blocking = outcomes.filter((o) => o.verdict.block !== undefined)
      if (blocking.length === 0 || outcomes.some((o) => o.verdict.stop !== undefined)) {
        subagentGuards.delete(info.agentId)
        return undefined
      }
      const combined = blocking.map((o) => o.verdict.block).join('\n\n')
      // One guard per child: its continuations are counted apart from the parent's turn.
      const childGuard = subagentGuards.get(info.agentId) ?? new StopGuard(limits)
      subagentGuards.set(info.agentId, childGuard)
      const ruling = childGuard.rule(1, info.continuations, combined)
      if (ruling.steer) return combined
      subagentGuards.delete(info.agentId)
      const names = blocking.map((o) => handlerName(o.definition, agent.cwd)).join(', ')
      agent.notify('warning', `Rein let the subagent finish although the SubagentStop hook ${names} blocked it again, because ${ruling.why}.`)
      return undefined
    },
  }
}

/** A rule as Claude Code offers it to PermissionRequest hooks: `Bash(npm test)` → tool `Bash`, content `npm test`. */
function permissionSuggestion(rule: string): JsonValue {
  const m = /^([^(]+)(?:\((.*)\))?$/s.exec(rule)
  const toolName = m?.[1] ?? rule
  const rules = [{ toolName, ...(m?.[2] !== undefined ? { ruleContent: m[2] } : {}) }]
  return { type: 'addRules', rules, behavior: 'allow', destination: 'session' }
}
