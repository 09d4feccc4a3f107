import { RequestError, type ContentBlock } from '@agentclientprotocol/sdk'
import type { InputBlock } from '../llm/messages.js'

/**
 * How a prompt's ACP content becomes the user's content. Every block is passed on in order and verbatim:
 *
 * - `text` → a text block with the same text.
 * - `resource_link` → a text block `[name](uri)` naming the resource; the model reads it with its tools.
 * - `resource` with text → a text block `[uri](uri)` naming it, then a text block holding the text unchanged.
 * - `resource` with a blob → an image block when it is an image and images are accepted, otherwise the naming
 *   text block alone (the bytes are not shown to the model).
 * - `image` → an image block, only when the model accepts images (advertised in `initialize`).
 *
 * Audio, and images the model cannot take, are refused with an invalid-params error a person can act on.
 */
export function promptToInput(prompt: readonly ContentBlock[], options: { images: boolean }): InputBlock[] {
  const out: InputBlock[] = []
  for (const block of prompt) {
    switch (block.type) {
      case 'text':
        out.push({ type: 'text', text: block.text })
        break
      case 'resource_link':
        out.push({ type: 'text', text: linkText(block.name, block.uri) })
        break
      case 'resource': {
        const resource = block.resource
        out.push({ type: 'text', text: linkText(resource.uri, resource.uri) })
        if ('text' in resource) {
          out.push({ type: 'text', text: resource.text })
        } else if (options.images && resource.mimeType?.startsWith('image/')) {
          out.push({ type: 'image', mimeType: resource.mimeType, data: resource.blob })
        }
        break
      }
      case 'image':
        if (!options.images) {
          throw RequestError.invalidParams(
            { type: 'image' },
            'this model does not accept images; remove the image from the prompt and send it again',
          )
        }
        out.push({ type: 'image', mimeType: block.mimeType, data: block.data })
        break
      case 'audio':
        throw RequestError.invalidParams(
          { type: 'audio' },
          'Rein does not accept audio; remove the audio from the prompt and send it again',
        )
    }
  }
  return out
}

function linkText(name: string, uri: string): string {
  return `[${name}](${uri})`
}

/** An input block as ACP content, for replaying user messages on `session/load`. */
export function inputToAcp(block: InputBlock): ContentBlock {
  return block.type === 'text'
    ? { type: 'text', text: block.text }
    : { type: 'image', mimeType: block.mimeType, data: block.data }
}
