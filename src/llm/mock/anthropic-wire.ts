import { pieces, type ResponsePlan } from './plan.js'

const STOP = { stop: 'end_turn', length: 'max_tokens', 'tool-calls': 'tool_use' } as const

/** Input usage in Anthropic's terms: `input_tokens` excludes the tokens read from the cache. */
function inputUsage(plan: ResponsePlan): Record<string, number> {
  const { promptTokens, hitTokens } = plan.usage
  return { input_tokens: promptTokens - hitTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: hitTokens }
}

/**
 * The streamed answer as complete SSE frames of the Messages API: `message_start`, one block each for thinking, text
 * and every tool call (`input_json_delta` fragments), `message_delta` with the stop reason and output usage, and
 * `message_stop` last.
 */
export function anthropicFrames(plan: ResponsePlan): string[] {
  const frame = (type: string, data: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  const frames: string[] = []
  frames.push(
    frame('message_start', {
      message: {
        id: plan.id,
        type: 'message',
        role: 'assistant',
        model: plan.model,
        content: [],
        stop_reason: null,
        usage: { ...inputUsage(plan), output_tokens: 0 },
      },
    }),
  )
  let index = 0
  const block = (start: Record<string, unknown>, deltas: Record<string, unknown>[]): void => {
    frames.push(frame('content_block_start', { index, content_block: start }))
    for (const delta of deltas) frames.push(frame('content_block_delta', { index, delta }))
    frames.push(frame('content_block_stop', { index }))
    index++
  }
  if (plan.reasoning) {
    block(
      { type: 'thinking', thinking: '' },
      pieces(plan.reasoning, plan.chunkSize).map((p) => ({ type: 'thinking_delta', thinking: p })),
    )
  }
  if (plan.text) block({ type: 'text', text: '' }, pieces(plan.text, plan.chunkSize).map((p) => ({ type: 'text_delta', text: p })))
  for (const call of plan.calls) {
    block(
      { type: 'tool_use', id: call.id, name: call.name, input: {} },
      pieces(call.arguments, plan.chunkSize).map((p) => ({ type: 'input_json_delta', partial_json: p })),
    )
  }
  frames.push(
    frame('message_delta', {
      delta: { stop_reason: STOP[plan.finish], stop_sequence: null },
      usage: { output_tokens: plan.usage.outputTokens },
    }),
  )
  frames.push(frame('message_stop', {}))
  return frames
}

/** The same answer as one non-streaming Messages-API object. */
export function anthropicMessage(plan: ResponsePlan): Record<string, unknown> {
  const content: Record<string, unknown>[] = []
  if (plan.reasoning) content.push({ type: 'thinking', thinking: plan.reasoning })
  if (plan.text) content.push({ type: 'text', text: plan.text })
  for (const call of plan.calls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: parseInput(call.arguments) })
  return {
    id: plan.id,
    type: 'message',
    role: 'assistant',
    model: plan.model,
    content,
    stop_reason: STOP[plan.finish],
    stop_sequence: null,
    usage: { ...inputUsage(plan), output_tokens: plan.usage.outputTokens },
  }
}

function parseInput(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return {}
  }
}
