import type { ModelConfig, ModelRequest } from '../adapter.js'
import { ElementBytes, type BodyBytes } from '../body-bytes.js'
import { FoldCache } from '../fold-cache.js'
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
  return new AnthropicBodyEncoder().body(request)
}

/**
 * The message list folded so far: the JSON of the messages that are complete (the next message had the other role),
 * the last one still open to merging, and system text found among the messages. `out` keeps the body's bytes up to
 * the end of the complete messages once a request was encoded as bytes.
 */
interface AnthropicFold {
  json: string
  bytes: number
  last: AnthropicMessage | undefined
  systemParts: string[]
  out: ElementBytes
}

/**
 * `anthropicBody` for a session's requests, each extending the one before: complete messages stay JSON text between
 * requests (see FoldCache), so a request costs O(new messages) to build plus O(tools). The bytes are `anthropicBody`'s.
 */
export class AnthropicBodyEncoder {
  private readonly folded = new FoldCache<AnthropicFold>()

  body(request: ModelRequest): string {
    const { prefix, fold, tail } = this.parts(request)
    return `${prefix}${fold.json}${tail}`
  }

  /**
   * `body` as bytes with their digest, the bytes up to the end of the complete messages kept from the previous request
   * (`ElementBytes`): O(new messages + the open last message + tools). The prefix holds `max_tokens`, which stays the
   * model's output ceiling until the prompt nears the context window; from there each request's new cap starts the
   * bytes again, O(body).
   */
  encode(request: ModelRequest): BodyBytes {
    const { prefix, fold, tail } = this.parts(request)
    return fold.out.encode(prefix, fold.json, tail)
  }

  /** The body in three parts: up to `"messages":[`, the complete messages (`fold.json`), then the open message and the rest. */
  private parts(request: ModelRequest): { prefix: string; fold: AnthropicFold; tail: string } {
    const { config } = request
    const images = acceptsImages(config)
    const fold = this.folded.extend(
      config,
      request.messages,
      () => ({ json: '', bytes: 0, last: undefined, systemParts: [], out: new ElementBytes() }),
      (state, message) => {
        if (message.role === 'system') {
          state.systemParts.push(message.content)
          return
        }
        const converted = anthropicMessage(message, images, config)
        if (!converted || converted.content.length === 0) return
        if (state.last && state.last.role === converted.role) {
          state.last.content.push(...converted.content)
          return
        }
        if (state.last) {
          const json = JSON.stringify(state.last)
          state.bytes += Buffer.byteLength(json, 'utf8') + (state.json ? 1 : 0)
          state.json = state.json ? `${state.json},${json}` : json
          state.out.push(json)
        }
        state.last = converted
      },
    )
    const system = [request.system, ...fold.systemParts].filter((s) => s.length > 0).join(BLOCK_SEPARATOR)
    const lastJson = fold.last ? JSON.stringify(fold.last) : ''
    const open = fold.json && lastJson ? `,${lastJson}` : lastJson
    const messagesBytes = fold.bytes + Buffer.byteLength(open, 'utf8')

    const thinking = thinkingOf(config.effort)
    const rest: Record<string, unknown> = {}
    if (request.tools.length > 0) {
      rest.tools = sortedByName(request.tools).map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }))
    }
    rest.thinking = { type: thinking.type }
    if (thinking.effort) rest.output_config = { effort: thinking.effort }
    rest.stream = true
    if (config.userId !== undefined) rest.metadata = { user_id: config.userId }
    const head = (maxTokens: number | undefined): string =>
      `{"model":${JSON.stringify(config.model)},"max_tokens":${JSON.stringify(maxTokens)}${system ? `,"system":${JSON.stringify(system)}` : ''},"messages":[`
    const after = `],${JSON.stringify(rest).slice(1)}`
    const maxTokens = outputCap(config, true, Buffer.byteLength(head(0), 'utf8') + messagesBytes + Buffer.byteLength(after, 'utf8'))
    return { prefix: head(maxTokens), fold, tail: `${open}${after}` }
  }
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
