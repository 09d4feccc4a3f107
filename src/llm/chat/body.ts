import type { ModelConfig, ModelRequest } from '../adapter.js'
import { ElementBytes, type BodyBytes } from '../body-bytes.js'
import { FoldCache } from '../fold-cache.js'
import { acceptsImages, mustPassReasoning, outputCap, thinkingOf } from '../body-settings.js'
import { BLOCK_SEPARATOR, assistantParts, imageNote, sortedByName, toolResultText } from '../content.js'
import type { ImageBlock, InputBlock, Message } from '../messages.js'

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
 * The exact request body for `POST {base}/chat/completions`. Pure: the same request gives the same bytes,
 * since every object below is built with a fixed key order and tools are sorted by name.
 */
export function chatBody(request: ModelRequest): string {
  return new ChatBodyEncoder().body(request)
}

/**
 * The message list folded so far: its JSON (elements joined by commas), and tool images waiting for a non-tool
 * message. `out` keeps the body's bytes up to the end of the folded messages once a request was encoded as bytes.
 */
interface ChatFold {
  json: string
  bytes: number
  toolImages: ChatPart[]
  out: ElementBytes
}

/** One request's body in its parts: `head`, the system message (`''` without one), the folded messages, then `tail` (tool images, `]`, the rest). */
interface ChatParts {
  head: string
  system: string
  fold: ChatFold
  tail: string
}

/**
 * `chatBody` for a session's requests, each extending the one before: the messages already encoded for the previous
 * request (same config, the same message objects in the same places) are kept as JSON text, so a request costs
 * O(new messages) to build plus O(tools), not O(session). The bytes are exactly `chatBody`'s: `JSON.stringify` of an
 * array is its elements' JSON joined by commas, and the fold is the same left fold `chatBody` runs.
 */
export class ChatBodyEncoder {
  private readonly folded = new FoldCache<ChatFold>()

  body(request: ModelRequest): string {
    const { head, system, fold, tail } = this.parts(request)
    const messages = system && fold.json ? `${system},${fold.json}` : system || fold.json
    return `${head}${messages}${tail}`
  }

  /**
   * `body` as bytes with their digest. The bytes up to the end of the folded messages are kept from the previous
   * request (`ElementBytes`), so a request that extends the last one encodes and hashes only its new messages and the
   * tail — O(new messages + tools), and the body is never one big string or copied into one buffer. A new system
   * prompt or model name (a new prefix) starts the bytes again from the folded JSON: O(body), once.
   */
  encode(request: ModelRequest): BodyBytes {
    const { head, system, fold, tail } = this.parts(request)
    return fold.out.encode(`${head}${system}`, fold.json, tail)
  }

  private parts(request: ModelRequest): ChatParts {
    const { config } = request
    const images = acceptsImages(config)
    const fold = this.folded.extend(
      config,
      request.messages,
      () => ({ json: '', bytes: 0, toolImages: [], out: new ElementBytes() }),
      (state, message) => {
        if (message.role !== 'tool' && state.toolImages.length) {
          append(state, { role: 'user', content: state.toolImages })
          state.toolImages = []
        }
        append(state, chatMessage(message, images, config))
        if (message.role === 'tool' && images) state.toolImages.push(...toolResultImages(message.callId, message.content))
      },
    )
    const system = request.system ? JSON.stringify({ role: 'system', content: request.system }) : ''
    let messagesBytes = fold.bytes
    if (system) messagesBytes += Buffer.byteLength(system, 'utf8') + (fold.json ? 1 : 0)
    let pending = ''
    if (fold.toolImages.length) {
      const json = JSON.stringify({ role: 'user', content: fold.toolImages })
      pending = system || fold.json ? `,${json}` : json
      messagesBytes += Buffer.byteLength(pending, 'utf8')
    }

    const thinking = thinkingOf(config.effort)
    const rest: Record<string, unknown> = {}
    if (request.tools.length > 0) {
      rest.tools = sortedByName(request.tools).map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }))
    }
    rest.thinking = { type: thinking.type }
    if (thinking.effort) rest.reasoning_effort = thinking.effort
    rest.max_tokens = 0
    rest.stream = true
    rest.stream_options = { include_usage: true }
    if (config.userId !== undefined) rest.user_id = config.userId
    const head = `{"model":${JSON.stringify(config.model)},"messages":[`
    const size = (tail: string): number => Buffer.byteLength(head, 'utf8') + messagesBytes + 2 + Buffer.byteLength(tail, 'utf8')
    const cap = outputCap(config, false, size(JSON.stringify(rest).slice(1)))
    if (cap === undefined) delete rest.max_tokens
    else rest.max_tokens = cap
    return { head, system, fold, tail: `${pending}],${JSON.stringify(rest).slice(1)}` }
  }
}

function append(state: ChatFold, message: ChatMessage): void {
  const json = JSON.stringify(message)
  state.bytes += Buffer.byteLength(json, 'utf8') + (state.json ? 1 : 0)
  state.json = state.json ? `${state.json},${json}` : json
  state.out.push(json)
}

/**
 * One neutral message on the chat wire. Assistant `content` is `""` when there is no text, never null;
 * `reasoning_content` is sent whenever reasoning exists, byte-exact, and in thinking mode as `""` on every message
 * with tool calls that had none (DeepSeek answers 400 without it: guides/thinking_mode); a tool result is
 * `role: tool` and reads `(no output)` when empty. A tool result's images follow the tool messages as a user message
 * (the chat wire's tool messages carry text only).
 */
export function chatMessage(message: Message, images: boolean, config?: ModelConfig): ChatMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content }
    case 'user':
      return { role: 'user', content: userContent(message.content, images) }
    case 'assistant': {
      const { reasoning, text, calls } = assistantParts(message)
      const out: ChatMessage = { role: 'assistant', content: text }
      if (reasoning || (config && mustPassReasoning(config, calls.length > 0))) out.reasoning_content = reasoning
      if (calls.length > 0) {
        out.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }))
      }
      return out
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.callId, content: toolText(message.content, images) }
  }
}

/** A tool result's text; with images sent separately, each image is named here so the model can pair them. */
function toolText(blocks: readonly InputBlock[], images: boolean): string {
  if (!images) return toolResultText(blocks)
  const text = blocks
    .map((b) => (b.type === 'text' ? b.text : `[image (${b.mimeType}) follows in the next message]`))
    .join(BLOCK_SEPARATOR)
  return text.length > 0 ? text : toolResultText(blocks)
}

function toolResultImages(callId: string, blocks: readonly InputBlock[]): ChatPart[] {
  const found = blocks.filter((b): b is ImageBlock => b.type === 'image')
  if (!found.length) return []
  return [{ type: 'text', text: `Image from tool call ${callId}:` }, ...found.map(imagePart)]
}

function imagePart(image: ImageBlock): ChatPart {
  return { type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.data}` } }
}

/** A string when the content is all text (blocks as paragraphs); an array of parts only when images are sent. */
function userContent(blocks: readonly InputBlock[], images: boolean): string | ChatPart[] {
  const hasImage = blocks.some((b) => b.type === 'image')
  if (!hasImage || !images) {
    return blocks.map((b) => (b.type === 'text' ? b.text : imageNote(b))).join(BLOCK_SEPARATOR)
  }
  return blocks.map((b): ChatPart => (b.type === 'text' ? { type: 'text', text: b.text } : imagePart(b)))
}
