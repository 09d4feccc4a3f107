import type { SessionUpdate, ToolCallContent, ToolCallStatus } from '@agentclientprotocol/sdk'
import type { Change } from '../checkpoints/engine.js'
import { changesLine } from './step-diff-content.js'
import type { LiveEvent } from '../agent/types.js'
import { costOf, DEFAULT_MODEL, modelInfo } from '../llm/catalog.js'
import type { Usage } from '../llm/messages.js'
import { sideRequestUsage, type SessionEvent } from '../session/events.js'
import { inputToAcp } from './content.js'
import { planEntries } from '../plan/entries.js'
import { describeToolCall, progressContent, resultContent, sandboxUpdate } from './tool-content.js'
import { toolLookup, type ToolLookup } from '../frontend/render/index.js'

/**
 * A step's changes to send as diffs once they are read from the snapshot: the step's last tool call, the content its
 * result update carried (kept, since an update's content replaces the call's), the snapshot before the step and
 * what changed.
 */
export interface StepDiffJob {
  callId: string
  resultContent: ToolCallContent[]
  /** The snapshot before the step; absent when the log names none (then only the paths can be listed). */
  before?: string
  paths: Change[]
}

/** Streamed command output kept per call for `tool_call_update`: the tail, in characters. */
const PROGRESS_TAIL = 16_000

/**
 * Turns one session's live events into ACP `session/update` payloads. One translator per ACP session: it
 * remembers which tool calls the client has been told about, so each call is announced once (`tool_call`, when the
 * assistant message that asked for it is committed, status `pending`) and then only updated (`in_progress` when it
 * starts, `completed`/`failed` with its content when its result is committed).
 *
 * Live, text and reasoning reach the client as deltas while the model streams; committed assistant messages add
 * only their tool calls. Replaying a stored log (`session/load`) has no deltas, so there the committed messages
 * supply text, reasoning and the user's own prompts.
 */
export class UpdateTranslator {
  /** Calls the client has been told about: call id → the tool's name and the arguments last shown. */
  private readonly announced = new Map<string, { name: string; args: string }>()
  private readonly progress = new Map<string, string>()
  /** The model of the latest request header seen, and the session's cost so far in USD. */
  private model = DEFAULT_MODEL
  private cost = 0
  /** What the session's subagents cost so far in USD (their `subagent/end` events), included in the amount and shown apart. */
  private subagentCost = 0
  // What a step changed (`checkpoint/changes`) is shown on the step's last tool call: the snapshot and the last call
  // of the latest step, the last call's result content, and a listing waiting for that result.
  private snapshot: { turn: number; step: number; commit: string } | undefined
  private lastCall: { turn: number; step: number; callId: string } | undefined
  private lastResult: { callId: string; content: ToolCallContent[] } | undefined
  private waitingChanges: { callId: string; paths: Change[] } | undefined
  private diffJobs: StepDiffJob[] = []

  /** `tools` finds each call's tool for its display (`liveToolLookup(() => agent.toolList)`); built-in tools by default. */
  constructor(
    private readonly cwd: string,
    private readonly tools: ToolLookup = toolLookup(),
  ) {}

  /** Diffs to read and send after the updates `live` returned (live events only; a replay lists the paths). */
  takeDiffJobs(): StepDiffJob[] {
    return this.diffJobs.splice(0)
  }

  live(live: LiveEvent): SessionUpdate[] {
    switch (live.type) {
      case 'text-delta':
        return live.text ? [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: live.text } }] : []
      case 'reasoning-delta':
        return live.text ? [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: live.text } }] : []
      case 'tool-progress': {
        const text = ((this.progress.get(live.callId) ?? '') + live.text).slice(-PROGRESS_TAIL)
        this.progress.set(live.callId, text)
        return [
          { sessionUpdate: 'tool_call_update', toolCallId: live.callId, status: 'in_progress', content: progressContent(text) },
        ]
      }
      case 'event':
        return this.committed(live.event, false)
      case 'tool-call-delta':
      case 'notice':
      case 'idle':
        return []
    }
  }

  /** The updates that show one stored event again, for `session/load`. */
  replay(event: SessionEvent): SessionUpdate[] {
    return this.committed(event, true)
  }

  private committed(stored: SessionEvent, replaying: boolean): SessionUpdate[] {
    const event = stored
    switch (event.type) {
      case 'user/message':
      case 'steering/message':
        if (!replaying) return []
        return event.data.content.map((block) => ({ sessionUpdate: 'user_message_chunk', content: inputToAcp(block) }))
      case 'request/header':
        this.model = event.data.config.model
        return []
      case 'subagent/end':
        // The next usage_update tells the client the new totals.
        this.subagentCost += event.data.cost
        return []
      case 'assistant/message': {
        const out: SessionUpdate[] = []
        const last = event.data.message.content.filter((b) => b.type === 'tool-call').at(-1)
        if (last?.type === 'tool-call') this.lastCall = { turn: event.data.turn, step: event.data.step, callId: last.id }
        for (const block of event.data.message.content) {
          if (block.type === 'tool-call') {
            out.push(this.announce(block.id, block.name, block.arguments, 'pending'))
          } else if (replaying && block.text) {
            const sessionUpdate = block.type === 'text' ? 'agent_message_chunk' : 'agent_thought_chunk'
            out.push({ sessionUpdate, content: { type: 'text', text: block.text } })
          }
        }
        if (event.data.usage) {
          // Replay only accumulates the cost: the client is told the totals by the next live response.
          const update = this.usage(event.data.usage, event.time)
          if (!replaying) out.push(update)
        }
        return out
      }
      case 'tool/call': {
        const args = event.data.rewritten?.arguments ?? event.data.arguments
        const previous = this.announced.get(event.data.callId)
        if (previous === undefined) return [this.announce(event.data.callId, event.data.name, args, 'in_progress')]
        if (previous.args !== args) {
          this.announced.set(event.data.callId, { name: event.data.name, args })
          const display = describeToolCall(this.tools(event.data.name), event.data.name, args, this.cwd)
          return [
            {
              sessionUpdate: 'tool_call_update',
              toolCallId: event.data.callId,
              status: 'in_progress',
              title: display.title,
              locations: display.locations,
              rawInput: display.rawInput,
            },
          ]
        }
        return replaying ? [] : [{ sessionUpdate: 'tool_call_update', toolCallId: event.data.callId, status: 'in_progress' }]
      }
      case 'tool/result': {
        const { callId, content, isError, meta } = event.data
        this.progress.delete(callId)
        const status: ToolCallStatus = isError ? 'failed' : 'completed'
        const announced = this.announced.get(callId)
        const tool = announced && this.tools(announced.name)
        const shown = resultContent(tool, content, isError, meta, this.cwd)
        const sandbox = sandboxUpdate(announced && describeToolCall(tool, announced.name, announced.args, this.cwd).title, meta, content)
        if (this.lastCall?.callId === callId) this.lastResult = { callId, content: shown }
        const waiting = this.waitingChanges?.callId === callId ? this.waitingChanges : undefined
        if (waiting) {
          this.waitingChanges = undefined
          if (!replaying) this.queueDiffs(callId, shown, waiting.paths)
        }
        // Replaying, the workspace is no longer as the step left it: the listing stands in for the diffs.
        const listed = waiting && replaying ? [...shown, changesLine(waiting.paths)] : shown
        return [{ sessionUpdate: 'tool_call_update', toolCallId: callId, status, content: listed, ...sandbox }]
      }
      case 'checkpoint/created':
        if ('commit' in event.data && event.data.commit) this.snapshot = { turn: event.data.turn, step: event.data.step, commit: event.data.commit }
        return []
      case 'checkpoint/changes': {
        const { turn, step, paths } = event.data
        const call = this.lastCall
        if (!paths.length || call?.turn !== turn || call.step !== step) return []
        const listed = paths.map((p) => ({ path: p.path, kind: p.kind }))
        // Logged before the last call's result, as usual: the listing rides on that result's update.
        if (this.lastResult?.callId !== call.callId) {
          this.waitingChanges = { callId: call.callId, paths: listed }
          return []
        }
        // Logged after the step ended (its last call never ran): the call's update is sent again with the changes.
        if (!replaying) {
          this.queueDiffs(call.callId, this.lastResult.content, listed)
          return []
        }
        return [{ sessionUpdate: 'tool_call_update', toolCallId: call.callId, content: [...this.lastResult.content, changesLine(listed)] }]
      }
      case 'todo/write':
        return [
          {
            sessionUpdate: 'plan',
            entries: event.data.todos.map((todo) => ({ content: todo.content, status: todo.status, priority: 'medium' })),
          },
        ]
      case 'permission/mode':
        return [{ sessionUpdate: 'current_mode_update', currentModeId: event.data.mode }]
      case 'plan/reviewed':
        return [{ sessionUpdate: 'plan', entries: planEntries(event.data.plan) }]
      case 'session/title':
        this.addSideCost(event)
        return [{ sessionUpdate: 'session_info_update', title: event.data.title }]
      case 'title/failed':
      case 'compaction/end':
        this.addSideCost(event)
        return []
      default:
        return []
    }
  }

  /** A model-made title's or a compaction summary's request is the session's own spend: the next `usage_update`'s amount includes it. */
  private addSideCost(event: SessionEvent): void {
    const side = sideRequestUsage(event)
    if (side) this.cost += costOf(side.usage, modelInfo(side.model), event.time)
  }

  private queueDiffs(callId: string, resultContent: ToolCallContent[], paths: Change[]): void {
    const snapshot = this.snapshot
    const call = this.lastCall
    const taken = snapshot && call && snapshot.turn === call.turn && snapshot.step === call.step ? snapshot.commit : undefined
    this.diffJobs.push({ callId, resultContent, before: taken, paths })
  }

  /**
   * `usage_update` after each model response: the tokens of that exchange (prompt plus output: what the context now
   * holds), the window of the model that answered, and the session's cost so far, priced from the built-in catalog at the prices in force when each response was answered.
   * The amount includes what subagents spent; `_meta.rein.subagentCostUsd` shows their part apart.
   */
  private usage(usage: Usage, time: number): SessionUpdate {
    const info = modelInfo(this.model)
    this.cost += costOf(usage, info, time)
    return {
      sessionUpdate: 'usage_update',
      used: usage.inputUncached + usage.inputCacheRead + usage.output,
      size: info.contextWindow,
      cost: { amount: Number((this.cost + this.subagentCost).toFixed(6)), currency: 'USD' },
      ...(this.subagentCost ? { _meta: { rein: { subagentCostUsd: Number(this.subagentCost.toFixed(6)) } } } : {}),
    }
  }

  private announce(callId: string, name: string, args: string, status: ToolCallStatus): SessionUpdate {
    this.announced.set(callId, { name, args })
    const display = describeToolCall(this.tools(name), name, args, this.cwd)
    return {
      sessionUpdate: 'tool_call',
      toolCallId: callId,
      title: display.title,
      kind: display.kind,
      status,
      locations: display.locations,
      rawInput: display.rawInput,
    }
  }
}
