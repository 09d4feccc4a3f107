import { toolCallsOf } from '../../../llm/messages.js'
import { isSurfaceType, type AnyEvent, type SessionEvent } from '../../../session/events.js'
import { assistantContent, messageUsage, userContent } from './content.js'
import { eventUuid, nameUuid } from './ids.js'
import type { AssistantLine, MessageLine, SandboxedResult, StopReason, UserContent, UserLine } from './shapes.js'
import { resultText, sandboxMark } from '../../../sandbox/result-mark.js'
import { apiRetryLine, compactBoundaryLine } from './system.js'

/**
 * Projects committed log events onto Claude Code's messages, in log order:
 *
 * - `user/message`, `steering/message`, `context/message` → one `user` line each, content verbatim (context lines are
 *   `isSynthetic`: a producer wrote them, not a person).
 * - `assistant/message` → one `assistant` line per model response. Its `stop_reason` is the API's, and the log shows
 *   it one event later: a response the turn ended `max-tokens` on is `max_tokens`, one with tool calls `tool_use`,
 *   an interrupted one null, any other `end_turn`. So the line is held until the next event that is not `step/end`.
 * - `tool/result` → gathered per step; one `user` line with every `tool_result` block at `step/end` (or at the next
 *   surface event or turn end, should a log lack the step's end). The results that ran sandboxed are listed in the
 *   line's `rein.sandboxed`, since Claude Code's `tool_result` has no such field and its consumers ignore `rein`.
 * - `llm/retry` → `system`/`api_retry`; a `compaction/end` that replaced part of the surface → `system`/`compact_boundary`.
 *
 * Every other event prints nothing. The projection is pure in the log: the same events always give the same lines.
 */
export class ClaudeMessages {
  private model: string
  private held: SessionEvent<'assistant/message'> | null = null
  private results: { seq: number; blocks: UserContent[]; sandboxed: SandboxedResult[] } | null = null
  /** Open compactions' triggers, by id; and the prompt size of the latest response, for `compact_boundary`. */
  private readonly compactions = new Map<string, string>()
  private lastPromptTokens = 0

  constructor(
    private readonly sessionId: string,
    initialModel: string,
    /** The parent's `task` call id when these are a subagent's lines. */
    private readonly parentToolUseId: string | null = null,
  ) {
    this.model = initialModel
  }

  /** The model of the latest request header seen. */
  get currentModel(): string {
    return this.model
  }

  /** The lines that `event` completes (possibly none, possibly an earlier held one). */
  push(committed: SessionEvent): MessageLine[] {
    // The envelope type is generic; the union narrows `data` by `type` in the switch below.
    const event = committed as AnyEvent
    const out: MessageLine[] = []
    if (this.held && event.type !== 'step/end') {
      out.push(this.assistantLine(this.held, event))
      this.held = null
    }
    if (this.results && endsResults(event)) out.push(...this.flushResults())
    switch (event.type) {
      case 'request/header':
        this.model = event.data.config.model
        break
      case 'user/message':
      case 'steering/message':
      case 'context/message': {
        const data = event.data
        out.push({
          type: 'user',
          message: { role: 'user', content: userContent(data.content) },
          parent_tool_use_id: this.parentToolUseId,
          session_id: this.sessionId,
          uuid: eventUuid(this.sessionId, event.seq, data.id),
          ...(event.type === 'context/message' ? { isSynthetic: true as const } : {}),
        })
        break
      }
      case 'assistant/message': {
        const data = event.data
        if (data.usage) this.lastPromptTokens = data.usage.inputUncached + data.usage.inputCacheRead
        if (data.interrupted) out.push(this.assistantLine(event, undefined))
        else this.held = event
        break
      }
      case 'tool/result': {
        const data = event.data
        this.results ??= { seq: event.seq, blocks: [], sandboxed: [] }
        this.results.blocks.push({ type: 'tool_result', tool_use_id: data.callId, content: userContent(data.content), is_error: data.isError })
        const mark = sandboxMark(data.meta, resultText(data.content))
        if (mark) {
          this.results.sandboxed.push({
            tool_use_id: data.callId,
            ...(mark.note ? { note: mark.note } : {}),
            ...(mark.refusedHosts.length ? { refused_hosts: mark.refusedHosts } : {}),
          })
        }
        break
      }
      case 'llm/retry':
        out.push(apiRetryLine(this.sessionId, event))
        break
      case 'compaction/start':
        this.compactions.set(event.data.id, event.data.trigger)
        break
      case 'compaction/end': {
        const trigger = this.compactions.get(event.data.id) ?? 'auto'
        this.compactions.delete(event.data.id)
        if (event.data.outcome === 'replaced') out.push(compactBoundaryLine(this.sessionId, event, trigger, this.lastPromptTokens))
        break
      }
      default:
        break
    }
    return out
  }

  /** Lines still held when the run ends (a log that stops mid-step). */
  finish(): MessageLine[] {
    const out: MessageLine[] = []
    if (this.held) out.push(this.assistantLine(this.held, undefined))
    this.held = null
    if (this.results) out.push(...this.flushResults())
    return out
  }

  private flushResults(): UserLine[] {
    const batch = this.results
    this.results = null
    if (!batch) return []
    return [
      {
        type: 'user',
        message: { role: 'user', content: batch.blocks },
        parent_tool_use_id: this.parentToolUseId,
        session_id: this.sessionId,
        uuid: eventUuid(this.sessionId, batch.seq),
        ...(batch.sandboxed.length ? { rein: { sandboxed: batch.sandboxed } } : {}),
      },
    ]
  }

  private assistantLine(event: SessionEvent<'assistant/message'>, next: SessionEvent | undefined): AssistantLine {
    const uuid = eventUuid(this.sessionId, event.seq)
    return {
      type: 'assistant',
      message: {
        id: messageId(this.sessionId, event.data.turn, event.data.step),
        type: 'message',
        role: 'assistant',
        model: this.model,
        content: assistantContent(event.data.message.content),
        stop_reason: stopReason(event, next),
        stop_sequence: null,
        stop_details: null,
        container: null,
        context_management: null,
        diagnostics: null,
        usage: messageUsage(event.data.usage),
      },
      parent_tool_use_id: this.parentToolUseId,
      session_id: this.sessionId,
      uuid,
    }
  }
}

/** The API's stop reason of a response, read from the response and the event that followed its step. */
export function stopReason(event: SessionEvent<'assistant/message'>, next: SessionEvent | undefined): StopReason | null {
  if (event.data.interrupted) return null
  const after = next as AnyEvent | undefined
  if (after?.type === 'turn/end' && after.data.reason === 'max-tokens') return 'max_tokens'
  return toolCallsOf(event.data.message).length ? 'tool_use' : 'end_turn'
}

/** The `message.id` of a step's response: the same on its stream events and on its `assistant` line. */
export function messageId(sessionId: string, turn: number, step: number): string {
  return `msg_${nameUuid(`${sessionId}:${turn}:${step}`).replaceAll('-', '')}`
}

/** Whether a pending batch of tool results is complete once `event` is seen. */
function endsResults(event: SessionEvent): boolean {
  if (event.type === 'step/end' || event.type === 'turn/end') return true
  return isSurfaceType(event.type) && event.type !== 'tool/result'
}
