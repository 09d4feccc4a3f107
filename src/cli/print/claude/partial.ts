import { randomUUID } from 'node:crypto'
import type { LiveEvent } from '../../../agent/types.js'
import { claudeToolName } from '../../../tools/claude-names.js'
import { messageId } from './messages.js'
import type { AssistantBody, MessageUsage, StopReason, StreamEvent, StreamEventLine } from './shapes.js'
import type { Uuid } from './ids.js'

type Delta = Extract<LiveEvent, { type: 'text-delta' | 'reasoning-delta' | 'tool-call-delta' }>

interface OpenMessage {
  id: string
  /** The open content block: its index in the message and what it holds (`text`, `thinking`, `tool:<n>`). */
  block: { index: number; key: string } | null
  blocks: number
}

/**
 * Turns Rein's streaming deltas into Anthropic's streaming events, as `stream_event` lines (only with
 * `--include-partial-messages`): `message_start` on a step's first delta, `content_block_start` / `_delta` / `_stop`
 * as the output moves between reasoning, text and tool calls, and `message_delta` + `message_stop` when the step's
 * response is committed (`close`), with the same stop reason and usage as its `assistant` line. Deltas are never
 * logged, so these lines have fresh random uuids.
 */
export class PartialMessages {
  private open: OpenMessage | null = null

  constructor(
    private readonly sessionId: string,
    private readonly model: () => string,
    /** The parent's `task` call id when these are a subagent's deltas. */
    private readonly parentToolUseId: string | null = null,
  ) {}

  delta(delta: Delta): StreamEventLine[] {
    const out: StreamEvent[] = []
    const id = messageId(this.sessionId, delta.turn, delta.step)
    if (this.open?.id !== id) {
      if (this.open) out.push(...this.endBlock())
      this.open = { id, block: null, blocks: 0 }
      out.push({ type: 'message_start', message: emptyMessage(id, this.model()) })
    }
    switch (delta.type) {
      case 'text-delta':
        out.push(...this.enter('text', { type: 'text', text: '', citations: null }))
        out.push({ type: 'content_block_delta', index: this.index(), delta: { type: 'text_delta', text: delta.text } })
        break
      case 'reasoning-delta':
        out.push(...this.enter('thinking', { type: 'thinking', thinking: '', signature: '' }))
        out.push({ type: 'content_block_delta', index: this.index(), delta: { type: 'thinking_delta', thinking: delta.text, estimated_tokens: null } })
        break
      case 'tool-call-delta':
        out.push(...this.enter(`tool:${delta.index}`, { type: 'tool_use', id: delta.id ?? '', name: delta.name ? claudeToolName(delta.name) : '', input: {} }))
        if (delta.argumentsDelta) {
          out.push({ type: 'content_block_delta', index: this.index(), delta: { type: 'input_json_delta', partial_json: delta.argumentsDelta } })
        }
        break
    }
    return out.map((event) => this.line(event))
  }

  /** Ends the streamed message `id`, if it is the open one, with its final stop reason and usage. */
  close(id: string, stopReason: StopReason | null, usage: MessageUsage): StreamEventLine[] {
    if (this.open?.id !== id) return []
    const out: StreamEvent[] = [
      ...this.endBlock(),
      {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null, container: null, stop_details: null },
        usage: {
          input_tokens: usage.input_tokens,
          cache_read_input_tokens: usage.cache_read_input_tokens,
          cache_creation_input_tokens: usage.cache_creation_input_tokens,
          output_tokens: usage.output_tokens,
          fallback_credit: null,
          iterations: null,
          server_tool_use: null,
          output_tokens_details: usage.output_tokens_details,
        },
        context_management: null,
      },
      { type: 'message_stop' },
    ]
    this.open = null
    return out.map((event) => this.line(event))
  }

  /**
   * Ends a streamed message that will not be committed as it streamed: its request failed and is retried (the retry
   * streams again under a new `message_start`), or the turn ended without it. Stop reason null, no usage.
   */
  abandon(): StreamEventLine[] {
    return this.open ? this.close(this.open.id, null, emptyMessage(this.open.id, this.model()).usage) : []
  }

  private enter(key: string, block: Extract<StreamEvent, { type: 'content_block_start' }>['content_block']): StreamEvent[] {
    const open = this.open as OpenMessage
    if (open.block?.key === key) return []
    const out = this.endBlock()
    open.block = { index: open.blocks++, key }
    out.push({ type: 'content_block_start', index: open.block.index, content_block: block })
    return out
  }

  private endBlock(): StreamEvent[] {
    const open = this.open
    if (!open?.block) return []
    const index = open.block.index
    open.block = null
    return [{ type: 'content_block_stop', index }]
  }

  private index(): number {
    return (this.open as OpenMessage).block?.index ?? 0
  }

  private line(event: StreamEvent): StreamEventLine {
    return { type: 'stream_event', event, parent_tool_use_id: this.parentToolUseId, session_id: this.sessionId, uuid: randomUUID() as Uuid }
  }
}

function emptyMessage(id: string, model: string): AssistantBody {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    stop_details: null,
    container: null,
    context_management: null,
    diagnostics: null,
    usage: {
      input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
      output_tokens: 0,
      cache_creation: null,
      fallback_credit: null,
      inference_geo: null,
      iterations: null,
      output_tokens_details: { thinking_tokens: 0 },
      server_tool_use: null,
      service_tier: null,
      speed: null,
    },
  }
}
