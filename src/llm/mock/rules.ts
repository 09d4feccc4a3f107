import { isKnownModel, modelInfo, RETIRED_MODELS } from '../catalog.js'

/**
 * DeepSeek's documented refusals, which the mock enforces so a regression fails a test rather than a user. Each rule
 * answers with the status and message DeepSeek sends (docs/model-access.md names the source of each, and which are
 * unconfirmed). Returns null when the request passes.
 */
export interface Refusal {
  status: number
  message: string
  type: string
}

export const CHAT_PASSBACK_MESSAGE = 'The `reasoning_content` in the thinking mode must be passed back to the API.'
export const ANTHROPIC_PASSBACK_MESSAGE = 'The `content[].thinking` in the thinking mode must be passed back to the API.'

export function refusalFor(wire: 'chat' | 'anthropic', body: Record<string, unknown>, promptTokens: number): Refusal | null {
  const model = typeof body.model === 'string' ? body.model : ''
  if (RETIRED_MODELS.some((m) => m.id === model)) return invalid('Model Not Exist')
  if (thinkingEnabled(body) && missingPassback(wire, body.messages)) {
    return invalid(wire === 'chat' ? CHAT_PASSBACK_MESSAGE : ANTHROPIC_PASSBACK_MESSAGE)
  }
  const maxTokens = body.max_tokens
  if (typeof maxTokens === 'number' && isKnownModel(model)) {
    const info = modelInfo(model)
    if (!Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > info.maxOutput) {
      return invalid(`Invalid max_tokens value, the valid range of max_tokens is [1, ${info.maxOutput}]`)
    }
    if (promptTokens + maxTokens > info.contextWindow) {
      return invalid(
        `This model's maximum context length is ${info.contextWindow} tokens. However, you requested ${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`,
      )
    }
  }
  return null
}

/** Thinking is on unless the body turns it off: DeepSeek's V4 models think by default. */
function thinkingEnabled(body: Record<string, unknown>): boolean {
  const thinking = body.thinking as { type?: unknown } | undefined
  return thinking?.type !== 'disabled'
}

/** An assistant message with tool calls but without its reasoning (`reasoning_content`, or a leading `thinking` block). */
function missingPassback(wire: 'chat' | 'anthropic', messages: unknown): boolean {
  if (!Array.isArray(messages)) return false
  return messages.some((m: unknown) => {
    if (!m || typeof m !== 'object') return false
    const message = m as { role?: unknown; content?: unknown; tool_calls?: unknown; reasoning_content?: unknown }
    if (message.role !== 'assistant') return false
    if (wire === 'chat') {
      return Array.isArray(message.tool_calls) && message.tool_calls.length > 0 && typeof message.reasoning_content !== 'string'
    }
    if (!Array.isArray(message.content)) return false
    const blocks = message.content as { type?: unknown }[]
    return blocks.some((b) => b?.type === 'tool_use') && !blocks.some((b) => b?.type === 'thinking')
  })
}

function invalid(message: string): Refusal {
  return { status: 400, message, type: 'invalid_request_error' }
}
