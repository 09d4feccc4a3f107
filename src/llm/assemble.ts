import type { ModelError } from './errors.js'
import type { AssistantBlock, AssistantMessage, ToolCallBlock, Usage } from './messages.js'
import type { FinishReason, StreamChunk } from './stream.js'

interface PartialCall {
  id?: string
  name?: string
  arguments: string
}

/** One response as the log stores it. */
export interface AssembledResponse {
  message: AssistantMessage
  usage?: Usage
  finish: FinishReason
  error?: ModelError
}

/**
 * Builds an assistant message from stream chunks. The content order is fixed whatever order the deltas came in:
 * reasoning, then text, then tool calls by index, so the same response always replays as the same bytes.
 * Tool calls survive only a `stop` or `tool-calls` finish: after `max-tokens`, an error or a cancel they may be
 * partial, and a call without a result would break the next request.
 */
export class ResponseAssembler {
  private reasoning = ''
  private text = ''
  private readonly calls = new Map<number, PartialCall>()
  private usage?: Usage
  private finish?: { reason: FinishReason; error?: ModelError }

  push(chunk: StreamChunk): void {
    switch (chunk.type) {
      case 'reasoning-delta':
        this.reasoning += chunk.text
        return
      case 'text-delta':
        this.text += chunk.text
        return
      case 'tool-call-delta': {
        const call = this.calls.get(chunk.index) ?? { arguments: '' }
        if (chunk.id && !call.id) call.id = chunk.id
        if (chunk.name && !call.name) call.name = chunk.name
        call.arguments += chunk.argumentsDelta
        this.calls.set(chunk.index, call)
        return
      }
      case 'usage':
        this.usage = chunk.usage
        return
      case 'finish':
        this.finish = { reason: chunk.reason, error: chunk.error }
        return
    }
  }

  /** What has been assembled so far. Without a `finish` chunk the response counts as `aborted`. */
  result(): AssembledResponse {
    let reason: FinishReason = this.finish?.reason ?? 'aborted'
    const keepCalls = reason === 'stop' || reason === 'tool-calls'
    const content: AssistantBlock[] = []
    if (this.reasoning) content.push({ type: 'reasoning', text: this.reasoning })
    if (this.text) content.push({ type: 'text', text: this.text })
    if (keepCalls) content.push(...this.toolCalls())
    if (reason === 'stop' && content.some((b) => b.type === 'tool-call')) reason = 'tool-calls'
    const out: AssembledResponse = { message: { role: 'assistant', content }, finish: reason }
    if (this.usage) out.usage = this.usage
    if (this.finish?.error) out.error = this.finish.error
    return out
  }

  private toolCalls(): ToolCallBlock[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({
        type: 'tool-call' as const,
        id: call.id ?? `call_${index}`,
        name: call.name ?? '',
        arguments: call.arguments,
      }))
  }
}
