import type { MockResponse } from './script.js'
import { estimateTokens } from './prompt-cache.js'

/** A scripted response made concrete for one request: ids assigned, arguments as text, usage counted. */
export interface ResponsePlan {
  id: string
  model: string
  reasoning: string
  text: string
  calls: { id: string; name: string; arguments: string }[]
  finish: 'stop' | 'length' | 'tool-calls'
  chunkSize: number
  usagePlacement: 'finish' | 'trailing' | 'none'
  usage: { promptTokens: number; hitTokens: number; outputTokens: number; reasoningTokens: number }
}

export function planResponse(
  response: MockResponse,
  request: { index: number; model: string; promptTokens: number; hitTokens: number },
): ResponsePlan {
  const calls = (response.toolCalls ?? []).map((call, n) => ({
    id: call.id ?? `call_${request.index}_${n}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
  }))
  const reasoning = response.reasoning ?? ''
  const text = response.text ?? ''
  const finish = response.finish === 'length' ? 'length' : calls.length > 0 ? 'tool-calls' : 'stop'
  const reasoningTokens = reasoning ? estimateTokens(reasoning) : 0
  const outputTokens = reasoningTokens + estimateTokens(text + calls.map((c) => c.name + c.arguments).join(''))
  return {
    id: `mock-${request.index}`,
    model: request.model,
    reasoning,
    text,
    calls,
    finish,
    chunkSize: Math.max(1, response.chunkSize ?? 16),
    usagePlacement: response.usage ?? 'finish',
    usage: { promptTokens: request.promptTokens, hitTokens: request.hitTokens, outputTokens, reasoningTokens },
  }
}

/** `text` cut into pieces of `size` characters (never splitting a surrogate pair); none for empty text. */
export function pieces(text: string, size: number): string[] {
  const chars = Array.from(text)
  const out: string[] = []
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''))
  return out
}
