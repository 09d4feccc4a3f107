import { pieces, type ResponsePlan } from './plan.js'

/** The plan's usage in DeepSeek's chat-completions shape, with both the DeepSeek and the OpenAI cache fields. */
function usageOf(plan: ResponsePlan): Record<string, unknown> {
  const { promptTokens, hitTokens, outputTokens, reasoningTokens } = plan.usage
  return {
    prompt_tokens: promptTokens,
    completion_tokens: outputTokens,
    total_tokens: promptTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: hitTokens },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
    prompt_cache_hit_tokens: hitTokens,
    prompt_cache_miss_tokens: promptTokens - hitTokens,
  }
}

const FINISH = { stop: 'stop', length: 'length', 'tool-calls': 'tool_calls' } as const

/**
 * The streamed answer as complete SSE frames, shaped as DeepSeek sends them: a first chunk with the role (and an
 * empty `reasoning_content` when thinking), reasoning then content deltas, each tool call's id and name on its first
 * delta followed by argument fragments, a finish chunk, optional trailing usage chunk, and `[DONE]` last.
 */
export function chatFrames(plan: ResponsePlan): string[] {
  const created = Math.floor(Date.now() / 1000)
  const frame = (choices: unknown[], extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({ id: plan.id, object: 'chat.completion.chunk', created, model: plan.model, choices, ...extra })}\n\n`
  const delta = (d: Record<string, unknown>): string => frame([{ index: 0, delta: d, finish_reason: null }])

  const frames: string[] = []
  frames.push(delta(plan.reasoning ? { role: 'assistant', content: null, reasoning_content: '' } : { role: 'assistant', content: '' }))
  for (const piece of pieces(plan.reasoning, plan.chunkSize)) frames.push(delta({ reasoning_content: piece }))
  for (const piece of pieces(plan.text, plan.chunkSize)) frames.push(delta({ content: piece }))
  plan.calls.forEach((call, index) => {
    frames.push(delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }))
    for (const piece of pieces(call.arguments, plan.chunkSize)) {
      frames.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }))
    }
  })
  const finish = [{ index: 0, delta: {}, finish_reason: FINISH[plan.finish] }]
  frames.push(plan.usagePlacement === 'finish' ? frame(finish, { usage: usageOf(plan) }) : frame(finish))
  if (plan.usagePlacement === 'trailing') frames.push(frame([], { usage: usageOf(plan) }))
  frames.push('data: [DONE]\n\n')
  return frames
}

/** The same answer as one non-streaming `chat.completion` object. */
export function chatCompletion(plan: ResponsePlan): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: plan.text }
  if (plan.reasoning) message.reasoning_content = plan.reasoning
  if (plan.calls.length > 0) {
    message.tool_calls = plan.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }))
  }
  return {
    id: plan.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: plan.model,
    choices: [{ index: 0, message, finish_reason: FINISH[plan.finish] }],
    usage: usageOf(plan),
  }
}
