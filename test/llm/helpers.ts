import type { ModelAdapter, ModelRequest, Wire } from '../../src/llm/adapter.js'
import { ResponseAssembler, type AssembledResponse } from '../../src/llm/assemble.js'
import { createAdapter } from '../../src/llm/create.js'
import type { Message } from '../../src/llm/messages.js'
import type { StreamChunk } from '../../src/llm/stream.js'

export const WIRES: Wire[] = ['chat', 'anthropic']

export function adapterFor(wire: Wire, baseUrl: string, extra: { apiKey?: string; idleTimeoutMs?: number } = {}): ModelAdapter {
  return createAdapter({ wire, baseUrl, apiKey: () => extra.apiKey, idleTimeoutMs: extra.idleTimeoutMs })
}

export function requestOf(messages: Message[], overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    config: { model: 'deepseek-v4-flash', effort: 'high' },
    system: 'You are a test.',
    tools: [],
    messages,
    ...overrides,
  }
}

export function userSays(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] }
}

export async function collect(stream: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const out: StreamChunk[] = []
  for await (const chunk of stream) out.push(chunk)
  return out
}

/** Sends one request through the real adapter and assembles the answer. */
export async function ask(adapter: ModelAdapter, request: ModelRequest, signal?: AbortSignal): Promise<AssembledResponse & { chunks: StreamChunk[] }> {
  const chunks = await collect(adapter.stream(adapter.body(request), { signal }))
  const assembler = new ResponseAssembler()
  for (const chunk of chunks) assembler.push(chunk)
  return { ...assembler.result(), chunks }
}

/** Polls until `check` holds; for server-side state that settles a moment after the client acts. */
export async function eventually(check: () => boolean, what: string, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (check()) return
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`never happened: ${what}`)
}
