import type { InputBlock } from '../llm/messages.js'

/**
 * The first line of the text block a front end adds to a prompt for each file it attached (`@path` in the terminal
 * UI): the block is the user's message content, logged verbatim; front ends show it as this line alone.
 */
export const ATTACHED_HEADING = 'Attached file @'

/** A prompt's text as a picker row shows it; each image as `[image <mime type>]`. */
export function blocksText(blocks: readonly InputBlock[]): string {
  return blocks.map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`)).join('')
}

/** The text a person typed: the first text block of a prompt, without what it attached (a fork puts it back). */
export function typedText(blocks: readonly InputBlock[]): string {
  const first = blocks[0]
  return first?.type === 'text' && !first.text.startsWith(ATTACHED_HEADING) ? first.text : blocksText(blocks)
}
