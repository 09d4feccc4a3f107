import type { AssistantBlock, InputBlock, Usage } from '../../../llm/messages.js'
import { claudeToolName } from '../../../tools/claude-names.js'
import type { AssistantContent, MessageUsage, UserContent } from './shapes.js'

/** Rein's input blocks as Anthropic user content blocks. */
export function userContent(blocks: readonly InputBlock[]): Exclude<UserContent, { type: 'tool_result' }>[] {
  return blocks.map((block) =>
    block.type === 'text'
      ? { type: 'text', text: block.text }
      : { type: 'image', source: { type: 'base64', media_type: block.mimeType, data: block.data } },
  )
}

/**
 * Rein's assistant blocks as Anthropic content blocks. Reasoning becomes `thinking` with an empty `signature`
 * (DeepSeek signs nothing). A tool call's `name` is Claude Code's (`Read`, src/tools/claude-names.ts); its `input`
 * is its arguments parsed; arguments that are not a JSON object (the model wrote broken JSON, which the tool
 * refused) show as `{}` — the raw text stays in the log's `tool/call`.
 */
export function assistantContent(blocks: readonly AssistantBlock[]): AssistantContent[] {
  return blocks.map((block) => {
    switch (block.type) {
      case 'reasoning':
        return { type: 'thinking', thinking: block.text, signature: '' }
      case 'text':
        return { type: 'text', text: block.text, citations: null }
      case 'tool-call':
        return { type: 'tool_use', id: block.id, name: claudeToolName(block.name), input: argumentsObject(block.arguments) }
    }
  })
}

export function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text)
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
  } catch {
    // Broken arguments were already answered with an error result; the consumer sees the call with no input.
    return {}
  }
}

/** One response's usage in the API's terms: `input_tokens` is the uncached part only, so adding cache reads counts each token once. */
export function messageUsage(usage: Usage | undefined): MessageUsage {
  return {
    input_tokens: usage?.inputUncached ?? 0,
    cache_read_input_tokens: usage?.inputCacheRead ?? 0,
    cache_creation_input_tokens: 0,
    output_tokens: usage?.output ?? 0,
    cache_creation: null,
    fallback_credit: null,
    inference_geo: null,
    iterations: null,
    output_tokens_details: { thinking_tokens: usage?.reasoning ?? 0 },
    server_tool_use: null,
    service_tier: null,
    speed: null,
  }
}
