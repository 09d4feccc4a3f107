import type { AssistantMessage, ImageBlock, InputBlock, ToolCallBlock } from './messages.js'

/**
 * How both wires flatten neutral content into provider text. These choices are part of every request's bytes, so
 * they are fixed here once: separate input blocks are separate paragraphs, and an assistant's own blocks (one stream
 * split only by Rein's assembly) are rejoined with nothing between them.
 */
export const BLOCK_SEPARATOR = '\n\n'

/** Sent in place of a tool result that has no text, so the model never sees an empty message. */
export const NO_OUTPUT = '(no output)'

/** The text that stands for an image the wire or model cannot take. */
export function imageNote(image: ImageBlock): string {
  return `[image (${image.mimeType}) omitted: this model does not accept images]`
}

/** Input blocks as one string; images become notes. */
export function inputText(blocks: readonly InputBlock[]): string {
  return blocks.map((b) => (b.type === 'text' ? b.text : imageNote(b))).join(BLOCK_SEPARATOR)
}

/** A tool result's text; `(no output)` when it has none. */
export function toolResultText(blocks: readonly InputBlock[]): string {
  const text = inputText(blocks)
  return text.length > 0 ? text : NO_OUTPUT
}

/** The three parts of an assistant message, each joined byte-exact. */
export function assistantParts(message: AssistantMessage): { reasoning: string; text: string; calls: ToolCallBlock[] } {
  let reasoning = ''
  let text = ''
  const calls: ToolCallBlock[] = []
  for (const block of message.content) {
    if (block.type === 'reasoning') reasoning += block.text
    else if (block.type === 'text') text += block.text
    else calls.push(block)
  }
  return { reasoning, text, calls }
}

/** Tools sorted by name, so the schema prefix of every request is stable (DESIGN principle 3). */
export function sortedByName<T extends { name: string }>(tools: readonly T[]): T[] {
  return [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
