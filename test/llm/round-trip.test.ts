import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Message } from '../../src/llm/messages.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { WIRES, adapterFor, ask, requestOf, userSays } from './helpers.js'

let mock: MockModel
beforeEach(async () => {
  mock = await startMockModel()
})
afterEach(async () => {
  await mock.close()
})

/** Reasoning with the characters most likely to be mangled: surrogate pairs, CRLF, trailing spaces, escapes. */
const REASONING = 'Step 1: read the file 📄.\r\nStep 2: \\u0041 is not A; "quoted"  \n\t trailing space '

describe.each(WIRES)('a %s conversation with reasoning and tool calls', (wire) => {
  it('carries turn 1 reasoning into the turn 2 request exactly as it was streamed', async () => {
    mock.push(
      { reasoning: REASONING, toolCalls: [{ name: 'read', arguments: { path: 'a.ts' }, id: 'call_r' }], chunkSize: 3 },
      { reasoning: 'done', text: 'It says hello.' },
    )
    const adapter = adapterFor(wire, mock.url)
    const history: Message[] = [userSays('what does a.ts say?')]
    const first = await ask(adapter, requestOf(history))
    expect(first.finish).toBe('tool-calls')
    history.push(first.message, { role: 'tool', callId: 'call_r', content: [{ type: 'text', text: 'hello' }], isError: false })
    const second = await ask(adapter, requestOf(history))
    expect(second.message.content).toEqual([
      { type: 'reasoning', text: 'done' },
      { type: 'text', text: 'It says hello.' },
    ])

    const sent = mock.requests[1].body as any // the recorded wire JSON, read loosely
    if (wire === 'chat') {
      const assistant = sent.messages.find((m: any) => m.role === 'assistant')
      expect(assistant.reasoning_content).toBe(REASONING)
      expect(assistant.content).toBe('')
      expect(assistant.tool_calls[0].function.arguments).toBe('{"path":"a.ts"}')
      expect(sent.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_r', content: 'hello' })
    } else {
      const assistant = sent.messages.find((m: any) => m.role === 'assistant')
      expect(assistant.content[0]).toEqual({ type: 'thinking', thinking: REASONING })
      expect(assistant.content[1]).toEqual({ type: 'tool_use', id: 'call_r', name: 'read', input: { path: 'a.ts' } })
    }
  })

  it('makes the second request extend the first, so the mock reports a cache hit', async () => {
    mock.push({ text: 'first answer' }, { text: 'second answer' })
    const adapter = adapterFor(wire, mock.url)
    const history: Message[] = [userSays('x'.repeat(2000))]
    const first = await ask(adapter, requestOf(history))
    history.push(first.message, userSays('again'))
    const second = await ask(adapter, requestOf(history))
    expect(second.usage!.inputCacheRead).toBeGreaterThanOrEqual(448)
  })
})
