import type { ModelRequest } from '../adapter.js'
import { acceptsImages, outputCap, thinkingOf, type BodySettings } from '../body-settings.js'
import { BLOCK_SEPARATOR, assistantParts, imageNote, sortedByName, toolResultText } from '../content.js'
import type { InputBlock, Message } from '../messages.js'

type ChatPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }

/** One message in DeepSeek's chat-completions shape. Keys are written in a fixed order. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatPart[] }
  | {
      role: 'assistant'
      content: string
      reasoning_content?: string
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[]
    }
  | { role: 'tool'; tool_call_id: string; content: string }

/**
 * The exact request body for `POST {base}/chat/completions`. Pure: the same request and settings give the same bytes,
 * since every object below is built with a fixed key order and tools are sorted by name.
 */
export function chatBody(request: ModelRequest, settings: BodySettings): string {
  const { config } = request
  const images = acceptsImages(config.model, settings)
  const messages: ChatMessage[] = []
  if (request.system) messages.push({ role: 'system', content: request.system })
  for (const message of request.messages) messages.push(chatMessage(message, images))

  const thinking = thinkingOf(config.effort)
  const body: Record<string, unknown> = { model: config.model, messages }
  if (request.tools.length > 0) {
    body.tools = sortedByName(request.tools).map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }))
  }
  body.thinking = { type: thinking.type }
  if (thinking.effort) body.reasoning_effort = thinking.effort
  const cap = outputCap(config, settings, false)
  if (cap !== undefined) body.max_tokens = cap
  body.stream = true
  body.stream_options = { include_usage: true }
  return JSON.stringify(body)
}

/**
 * One neutral message on the chat wire. Assistant `content` is `""` when there is no text, never null;
 * `reasoning_content` is sent whenever reasoning exists, byte-exact (DeepSeek answers 400 without it after tool
 * calls in thinking mode); a tool result is `role: tool` and reads `(no output)` when empty.
 */
export function chatMessage(message: Message, images: boolean): ChatMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content }
    case 'user':
      return { role: 'user', content: userContent(message.content, images) }
    case 'assistant': {
      const { reasoning, text, calls } = assistantParts(message)
      const out: ChatMessage = { role: 'assistant', content: text }
      if (reasoning) out.reasoning_content = reasoning
      if (calls.length > 0) {
        out.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }))
      }
      return out
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.callId, content: toolResultText(message.content) }
  }
}

/** A string when the content is all text (blocks as paragraphs); an array of parts only when images are sent. */
function userContent(blocks: readonly InputBlock[], images: boolean): string | ChatPart[] {
  const hasImage = blocks.some((b) => b.type === 'image')
  if (!hasImage || !images) {
    return blocks.map((b) => (b.type === 'text' ? b.text : imageNote(b))).join(BLOCK_SEPARATOR)
  }
  return blocks.map((b): ChatPart =>
    b.type === 'text' ? { type: 'text', text: b.text } : { type: 'image_url', image_url: { url: `data:${b.mimeType};base64,${b.data}` } },
  )
}
