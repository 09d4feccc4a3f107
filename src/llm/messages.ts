/**
 * The provider-neutral vocabulary of model input and output. Adapters translate it to and from a wire; the
 * session log stores it as it is. Every value here is plain JSON.
 */

export interface TextBlock {
  type: 'text'
  text: string
}

/** Model reasoning ("thinking"). Replayed byte-exact on later requests: DeepSeek requires it and it keeps the cache. */
export interface ReasoningBlock {
  type: 'reasoning'
  text: string
}

/** An image, base64-encoded. Only sent to models whose catalog entry accepts images. */
export interface ImageBlock {
  type: 'image'
  mimeType: string
  data: string
}

/** A tool call as the model wrote it. `arguments` is the raw JSON text, never re-serialized. */
export interface ToolCallBlock {
  type: 'tool-call'
  id: string
  name: string
  arguments: string
}

export type ContentBlock = TextBlock | ReasoningBlock | ImageBlock | ToolCallBlock
/** What a person, a producer or a tool may put in front of the model. */
export type InputBlock = TextBlock | ImageBlock
export type AssistantBlock = TextBlock | ReasoningBlock | ToolCallBlock

export interface SystemMessage {
  role: 'system'
  content: string
}
export interface UserMessage {
  role: 'user'
  content: readonly InputBlock[]
}
export interface AssistantMessage {
  role: 'assistant'
  content: readonly AssistantBlock[]
}
/** The result of one tool call, paired with its call by `callId`. */
export interface ToolResultMessage {
  role: 'tool'
  callId: string
  content: readonly InputBlock[]
  isError: boolean
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage

/** A tool as the model is told about it. `parameters` is a JSON Schema object. */
export interface ToolSchema {
  name: string
  description: string
  parameters: Record<string, unknown>
}

/** Tokens of one response. The four counts are disjoint: `inputUncached + inputCacheRead` is the whole prompt. */
export interface Usage {
  inputUncached: number
  inputCacheRead: number
  output: number
  /** Part of `output` spent on reasoning, when the provider reports it. */
  reasoning: number
}

export const zeroUsage: Usage = Object.freeze({ inputUncached: 0, inputCacheRead: 0, output: 0, reasoning: 0 })

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputUncached: a.inputUncached + b.inputUncached,
    inputCacheRead: a.inputCacheRead + b.inputCacheRead,
    output: a.output + b.output,
    reasoning: a.reasoning + b.reasoning,
  }
}

export function textOf(blocks: readonly ContentBlock[]): string {
  return blocks
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('')
}

export function toolCallsOf(message: AssistantMessage): ToolCallBlock[] {
  return message.content.filter((b): b is ToolCallBlock => b.type === 'tool-call')
}
