import type { EventSourceMessage } from 'eventsource-parser'
import { classifyStreamError } from '../classify.js'
import { modelError } from '../describe.js'
import type { Usage } from '../messages.js'
import type { StreamChunk } from '../stream.js'
import type { WireDecoder } from '../transport.js'
import { parseStreamObject } from '../stream-event.js'

export interface AnthropicUsage {
  input_tokens?: number
  output_tokens?: number
  cache_read_input_tokens?: number
  cache_creation_input_tokens?: number
}

/** The parts of a Messages-API stream event Rein reads; all optional, since the wire is checked, not trusted. */
interface AnthropicEvent {
  type?: string
  index?: number
  message?: { usage?: AnthropicUsage }
  content_block?: { type?: string; id?: string; name?: string; text?: string; thinking?: string; input?: unknown }
  delta?: { type?: string; text?: string; thinking?: string; partial_json?: string; stop_reason?: string | null }
  usage?: AnthropicUsage
  error?: { type?: string; message?: string }
}

/**
 * Reads the Messages-API stream: `message_start` (input usage), `content_block_start/delta/stop` for `text`,
 * `thinking` and `tool_use` (`input_json_delta`), `message_delta` (stop reason, output usage), `message_stop` (the end
 * marker), `ping`, and `error`. Tool calls are numbered in the order their blocks open, independent of block index.
 * Unknown event types are skipped so that additions to the wire do not break Rein.
 */
export class AnthropicDecoder implements WireDecoder {
  done = false
  reason: WireDecoder['reason'] = 'stop'
  private counts: Required<AnthropicUsage> = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
  private sawUsage = false
  private readonly toolIndex = new Map<number, number>()

  get usage(): Usage | undefined {
    if (!this.sawUsage) return undefined
    const c = this.counts
    return {
      inputUncached: c.input_tokens + c.cache_creation_input_tokens,
      inputCacheRead: c.cache_read_input_tokens,
      output: c.output_tokens,
      reasoning: 0,
    }
  }

  decode(message: EventSourceMessage): StreamChunk[] {
    const event = parseStreamObject<AnthropicEvent>(message.data)
    switch (event.type) {
      case 'message_start':
        this.addUsage(event.message?.usage)
        return []
      case 'content_block_start':
        return this.blockStart(event)
      case 'content_block_delta':
        return this.blockDelta(event)
      case 'message_delta':
        if (event.delta?.stop_reason) this.reason = stopReason(event.delta.stop_reason)
        this.addUsage(event.usage)
        return []
      case 'message_stop':
        this.done = true
        if (this.reason === 'stop' && this.toolIndex.size > 0) this.reason = 'tool-calls'
        return []
      case 'error':
        throw classifyStreamError(event.error?.type, event.error?.message)
      default:
        return []
    }
  }

  private blockStart(event: AnthropicEvent): StreamChunk[] {
    const block = event.content_block
    if (!block) return []
    if (block.type === 'text' && block.text) return [{ type: 'text-delta', text: block.text }]
    if (block.type === 'thinking' && block.thinking) return [{ type: 'reasoning-delta', text: block.thinking }]
    if (block.type !== 'tool_use') return []
    const index = this.toolIndex.size
    this.toolIndex.set(event.index ?? index, index)
    const input = block.input && typeof block.input === 'object' && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : ''
    const chunk: StreamChunk = { type: 'tool-call-delta', index, argumentsDelta: input }
    if (block.id) chunk.id = block.id
    if (block.name) chunk.name = block.name
    return [chunk]
  }

  private blockDelta(event: AnthropicEvent): StreamChunk[] {
    const delta = event.delta
    if (!delta) return []
    if (delta.type === 'text_delta' && delta.text) return [{ type: 'text-delta', text: delta.text }]
    if (delta.type === 'thinking_delta' && delta.thinking) return [{ type: 'reasoning-delta', text: delta.thinking }]
    if (delta.type === 'input_json_delta' && delta.partial_json) {
      const index = this.toolIndex.get(event.index ?? -1)
      if (index === undefined) throw modelError('server', { detail: `input_json_delta for unopened block ${event.index}` })
      return [{ type: 'tool-call-delta', index, argumentsDelta: delta.partial_json }]
    }
    return []
  }

  /** Counts arrive in pieces (input at the start, cumulative output at the end); a later value of a field wins. */
  private addUsage(usage: AnthropicUsage | undefined): void {
    if (!usage) return
    this.sawUsage = true
    for (const key of Object.keys(this.counts) as (keyof AnthropicUsage)[]) {
      const value = usage[key]
      if (typeof value === 'number') this.counts[key] = value
    }
  }
}

function stopReason(reason: string): WireDecoder['reason'] {
  if (reason === 'max_tokens') return 'max-tokens'
  if (reason === 'tool_use') return 'tool-calls'
  return 'stop'
}
