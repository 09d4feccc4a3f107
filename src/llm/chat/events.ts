import type { EventSourceMessage } from 'eventsource-parser'
import { classifyStreamError } from '../classify.js'
import { modelError } from '../describe.js'
import type { Usage } from '../messages.js'
import type { StreamChunk } from '../stream.js'
import type { WireDecoder } from '../transport.js'
import { parseStreamObject } from '../stream-event.js'

/** The parts of a chat-completions chunk Rein reads. Every field is optional: the wire is checked, not trusted. */
interface ChatChunk {
  choices?: {
    delta?: {
      content?: string | null
      reasoning_content?: string | null
      tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[]
    }
    finish_reason?: string | null
  }[]
  usage?: ChatUsage | null
  error?: { message?: string; type?: string; code?: string | number }
}

export interface ChatUsage {
  prompt_tokens?: number
  completion_tokens?: number
  prompt_cache_hit_tokens?: number
  prompt_cache_miss_tokens?: number
  prompt_tokens_details?: { cached_tokens?: number } | null
  completion_tokens_details?: { reasoning_tokens?: number } | null
}

/**
 * Reads DeepSeek's chat-completions stream. The rules it keeps: empty deltas (the first reasoning chunk is often
 * `""`) open nothing; a tool call's `id` and `name` arrive on its index's first delta and argument fragments are passed
 * on for concatenation; usage may come on the finish chunk or a trailing chunk, and the last one seen wins; only
 * `[DONE]` ends the stream; data that is not JSON is an error; `length` is `max-tokens`.
 */
export class ChatDecoder implements WireDecoder {
  done = false
  reason: WireDecoder['reason'] = 'stop'
  usage?: Usage
  private sawToolCall = false

  decode(event: EventSourceMessage): StreamChunk[] {
    if (event.data.trim() === '[DONE]') {
      this.done = true
      if (this.reason === 'stop' && this.sawToolCall) this.reason = 'tool-calls'
      return []
    }
    const chunk = parseStreamObject<ChatChunk>(event.data)
    if (chunk.error) {
      const type = chunk.error.type ?? (chunk.error.code === undefined ? undefined : String(chunk.error.code))
      throw classifyStreamError(type, chunk.error.message)
    }
    if (chunk.usage) this.usage = chatUsage(chunk.usage)
    const out: StreamChunk[] = []
    const choice = chunk.choices?.[0]
    if (!choice) return out
    const delta = choice.delta ?? {}
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content) {
      out.push({ type: 'reasoning-delta', text: delta.reasoning_content })
    }
    if (typeof delta.content === 'string' && delta.content) out.push({ type: 'text-delta', text: delta.content })
    for (const call of delta.tool_calls ?? []) {
      this.sawToolCall = true
      const piece: StreamChunk = { type: 'tool-call-delta', index: call.index ?? 0, argumentsDelta: call.function?.arguments ?? '' }
      if (call.id) piece.id = call.id
      if (call.function?.name) piece.name = call.function.name
      out.push(piece)
    }
    if (choice.finish_reason) this.reason = finishReason(choice.finish_reason)
    return out
  }
}

function finishReason(reason: string): WireDecoder['reason'] {
  switch (reason) {
    case 'length':
      return 'max-tokens'
    case 'tool_calls':
      return 'tool-calls'
    case 'insufficient_system_resource':
      throw modelError('server', { detail: 'finish_reason insufficient_system_resource' })
    default:
      // `stop`, `content_filter` and reasons added later end the answer normally with what was said.
      return 'stop'
  }
}

/** DeepSeek's usage as disjoint counts; `prompt_tokens_details.cached_tokens` stands in when the DeepSeek fields are absent. */
export function chatUsage(usage: ChatUsage): Usage {
  const prompt = usage.prompt_tokens ?? 0
  const hit = usage.prompt_cache_hit_tokens ?? usage.prompt_tokens_details?.cached_tokens ?? 0
  const miss = usage.prompt_cache_miss_tokens ?? Math.max(0, prompt - hit)
  return {
    inputUncached: miss,
    inputCacheRead: hit,
    output: usage.completion_tokens ?? 0,
    reasoning: usage.completion_tokens_details?.reasoning_tokens ?? 0,
  }
}
