import { claudeAliasOf, isKnownModel, modelInfo, RETIRED_MODELS } from '../catalog.js'
import { isValidUserId } from '../user-id.js'

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

/**
 * `served` is what the endpoint serves (the mock's `models`); on the Anthropic wire a `claude*` name is served too,
 * as the model DeepSeek maps it to (guides/anthropic_api). Any other name is a 400 on both wires.
 */
export function refusalFor(
  wire: 'chat' | 'anthropic',
  body: Record<string, unknown>,
  promptTokens: number,
  served: readonly string[],
): Refusal | null {
  const model = typeof body.model === 'string' ? body.model : ''
  if (RETIRED_MODELS.some((m) => m.id === model)) return invalid('Model Not Exist')
  const mapped = wire === 'anthropic' ? claudeAliasOf(model) : undefined
  if (!served.includes(model) && !(mapped && served.includes(mapped))) return invalid('Model Not Exist')
  const parameter = invalidParameter(wire, body)
  if (parameter) return { status: 422, message: parameter, type: 'invalid_request_error' }
  if (thinkingEnabled(body) && missingPassback(wire, body.messages)) {
    return invalid(wire === 'chat' ? CHAT_PASSBACK_MESSAGE : ANTHROPIC_PASSBACK_MESSAGE)
  }
  const maxTokens = body.max_tokens
  if (maxTokens !== undefined && isKnownModel(model)) {
    const info = modelInfo(model)
    if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > info.maxOutput) {
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

const EFFORTS = ['low', 'medium', 'high', 'max', 'minimal', 'xhigh', 'ultra']

/**
 * DeepSeek's 422 (quick_start/error_codes, "Invalid Parameters"): a field of a known name with a value outside what
 * its page documents. `thinking.type` is `enabled` or `disabled` and the effort one of the Thinking Mode page's
 * values (guides/thinking_mode); `temperature` is in [0, 2] and `top_p` in [0, 1] (api/create-chat-completion);
 * `user_id` matches `[a-zA-Z0-9_-]`, at most 512 (quick_start/rate_limit). The wording is the mock's: DeepSeek's is
 * unconfirmed.
 */
function invalidParameter(wire: 'chat' | 'anthropic', body: Record<string, unknown>): string | null {
  const thinking = body.thinking
  if (thinking !== undefined) {
    const type = (thinking as { type?: unknown } | null)?.type
    if (type !== 'enabled' && type !== 'disabled') return `Invalid thinking.type ${JSON.stringify(type)}: expected "enabled" or "disabled".`
  }
  const effortField = wire === 'chat' ? 'reasoning_effort' : 'output_config.effort'
  const effort = wire === 'chat' ? body.reasoning_effort : (body.output_config as { effort?: unknown } | undefined)?.effort
  if (effort !== undefined && !EFFORTS.includes(effort as string)) {
    return `Invalid ${effortField} ${JSON.stringify(effort)}: expected one of ${EFFORTS.join(', ')}.`
  }
  const range = (name: string, min: number, max: number): string | null => {
    const value = body[name]
    if (value === undefined) return null
    return typeof value === 'number' && value >= min && value <= max ? null : `Invalid ${name} ${JSON.stringify(value)}: expected a number in [${min}, ${max}].`
  }
  const bad = range('temperature', 0, 2) ?? range('top_p', 0, 1)
  if (bad) return bad
  const userField = wire === 'chat' ? 'user_id' : 'metadata.user_id'
  const userId = wire === 'chat' ? body.user_id : (body.metadata as { user_id?: unknown } | undefined)?.user_id
  if (userId !== undefined && !isValidUserId(userId)) return `Invalid ${userField}: expected at most 512 characters of [a-zA-Z0-9_-].`
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
