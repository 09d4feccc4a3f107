import type { ModelRequest } from '../adapter.js'
import type { ModelConfig } from '../adapter.js'
import { acceptsImages, mustPassReasoning, outputCap, thinkingOf } from '../body-settings.js'
import { BLOCK_SEPARATOR, assistantParts, imageNote, sortedByName, toolResultText } from '../content.js'
import type { InputBlock, Message } from '../messages.js'

type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } }
  | { type: 'thinking'; thinking: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string | AnthropicBlock[]; is_error?: true }

interface AnthropicMessage {
  role: 'user' | 'assistant'
  content: AnthropicBlock[]
}

/**
 * The exact request body for `POST {base}/anthropic/v1/messages`. Pure, with fixed key order and tools sorted by name.
 * System text goes to the top-level `system`. Tool results travel as `tool_result` blocks in a user message, and
 * consecutive same-role messages are merged, as the Messages API expects alternating roles.
 */
export function anthropicBody(request: ModelRequest): string {
  const { config } = request
  const images = acceptsImages(config)
  const system = [request.system, ...request.messages.filter((m) => m.role === 'system').map((m) => m.content)]
    .filter((s) => s.length > 0)
    .join(BLOCK_SEPARATOR)

  const messages: AnthropicMessage[] = []
  for (const message of request.messages) {
    const converted = anthropicMessage(message, images, config)
    if (!converted || converted.content.length === 0) continue
    const last = messages[messages.length - 1]
    if (last && last.role === converted.role) last.content.push(...converted.content)
    else messages.push(converted)
  }

  const thinking = thinkingOf(config.effort)
  const body: Record<string, unknown> = { model: config.model, max_tokens: 0 }
  if (system) body.system = system
  body.messages = messages
  if (request.tools.length > 0) {
    body.tools = sortedByName(request.tools).map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }))
  }
  body.thinking = { type: thinking.type }
  if (thinking.effort) body.output_config = { effort: thinking.effort }
  body.stream = true
  if (config.userId !== undefined) body.metadata = { user_id: config.userId }
  body.max_tokens = outputCap(config, true, Buffer.byteLength(JSON.stringify(body), 'utf8'))
  return JSON.stringify(body)
}

/**
 * In thinking mode an assistant turn with tool calls always opens with a `thinking` block, empty when it had no
 * reasoning: DeepSeek answers 400 ("The `content[].thinking` in the thinking mode must be passed back") without it.
 */
function anthropicMessage(message: Message, images: boolean, config: ModelConfig): AnthropicMessage | null {
  switch (message.role) {
    case 'system':
      return null
    case 'user':
      return { role: 'user', content: inputBlocks(message.content, images) }
    case 'assistant': {
      const { reasoning, text, calls } = assistantParts(message)
      const content: AnthropicBlock[] = []
      if (reasoning || mustPassReasoning(config, calls.length > 0)) content.push({ type: 'thinking', thinking: reasoning })
      if (text) content.push({ type: 'text', text })
      for (const call of calls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call.arguments) })
      return { role: 'assistant', content }
    }
    case 'tool': {
      const hasImage = images && message.content.some((b) => b.type === 'image')
      const block: AnthropicBlock = {
        type: 'tool_result',
        tool_use_id: message.callId,
        content: hasImage ? inputBlocks(message.content, images) : toolResultText(message.content),
      }
      if (message.isError) block.is_error = true
      return { role: 'user', content: [block] }
    }
  }
}

/** Empty text blocks are left out: the Messages API rejects them. */
function inputBlocks(blocks: readonly InputBlock[], images: boolean): AnthropicBlock[] {
  const out: AnthropicBlock[] = []
  for (const b of blocks) {
    if (b.type === 'text') {
      if (b.text) out.push({ type: 'text', text: b.text })
    } else if (images) {
      out.push({ type: 'image', source: { type: 'base64', media_type: b.mimeType, data: b.data } })
    } else {
      out.push({ type: 'text', text: imageNote(b) })
    }
  }
  return out
}

/**
 * The Messages API wants `input` as an object, so the raw argument text is parsed here. Text that is not a JSON
 * object (a model's malformed call, already answered with an error result) is sent as `{}`.
 */
function toolInput(argumentsText: string): unknown {
  try {
    const parsed: unknown = JSON.parse(argumentsText)
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {}
  } catch {
    return {}
  }
}
