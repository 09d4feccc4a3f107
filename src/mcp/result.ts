import type { InputBlock } from '../llm/messages.js'
import type { ToolOutput } from '../tools/tool.js'

/**
 * One block of an MCP `tools/call` result, loosely typed: servers send what their SDK version knows, and an
 * unknown block type must not fail the call.
 */
interface ResultBlock {
  type: string
  text?: string
  data?: string
  mimeType?: string
  uri?: string
  name?: string
  title?: string
  description?: string
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string }
}

/** What an MCP server returned for one call (the `CallToolResult` shape, or the legacy `toolResult` one). */
export interface McpCallResult {
  content?: unknown
  structuredContent?: unknown
  isError?: boolean
  toolResult?: unknown
}

function blockToInput(block: ResultBlock): InputBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text ?? '' }
    case 'image':
      if (typeof block.data === 'string' && typeof block.mimeType === 'string') return { type: 'image', mimeType: block.mimeType, data: block.data }
      return { type: 'text', text: '[image without data]' }
    case 'resource_link': {
      const label = block.title ?? block.name ?? block.uri ?? 'resource'
      const details = [block.mimeType, block.description].filter(Boolean).join('; ')
      return { type: 'text', text: `Resource link: ${label} <${block.uri ?? ''}>${details ? ` (${details})` : ''}` }
    }
    case 'resource': {
      const resource = block.resource ?? {}
      if (typeof resource.text === 'string') return { type: 'text', text: `Resource <${resource.uri ?? ''}>:\n${resource.text}` }
      if (typeof resource.blob === 'string' && resource.mimeType?.startsWith('image/')) {
        return { type: 'image', mimeType: resource.mimeType, data: resource.blob }
      }
      return { type: 'text', text: `[binary resource <${resource.uri ?? ''}> (${resource.mimeType ?? 'unknown type'}) not shown]` }
    }
    case 'audio':
      return { type: 'text', text: `[audio (${block.mimeType ?? 'unknown type'}) not shown: the model cannot hear]` }
    default:
      return { type: 'text', text: `[${block.type} content not shown]` }
  }
}

/**
 * Turns an MCP result into what the model sees. Text stays text, images stay images (the adapter drops them for
 * models without image input), resource links and text resources become text. When a server sends only
 * `structuredContent`, its JSON is the text. An `isError` result is marked as an error and, unless its text already
 * says so, starts with `Error:` — the chat wire has no error flag, so the words carry it.
 */
export function toToolOutput(result: McpCallResult): ToolOutput {
  const blocks = Array.isArray(result.content) ? (result.content as ResultBlock[]) : []
  let content = blocks.filter((block) => typeof block === 'object' && block !== null).map(blockToInput)
  if (content.length === 0 && result.structuredContent !== undefined) {
    content = [{ type: 'text', text: JSON.stringify(result.structuredContent) }]
  }
  if (content.length === 0 && result.toolResult !== undefined) {
    content = [{ type: 'text', text: typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult) }]
  }
  if (!result.isError) return { content }
  const first = content[0]
  if (first?.type === 'text' && /^error\b/i.test(first.text.trimStart())) return { content, isError: true }
  if (first?.type === 'text') return { content: [{ type: 'text', text: `Error: ${first.text}` }, ...content.slice(1)], isError: true }
  return { content: [{ type: 'text', text: 'Error: the MCP tool reported a failure.' }, ...content], isError: true }
}

/** An error result for the model: one sentence it can act on. */
export function errorOutput(message: string): ToolOutput {
  return { content: [{ type: 'text', text: `Error: ${message}` }], isError: true }
}
