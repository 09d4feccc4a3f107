import { afterEach, describe, expect, it } from 'vitest'
import type { Message } from '../../src/llm/messages.js'
import { endpointFor } from '../../src/llm/endpoints.js'
import { fittedOutputCap, OUTPUT_FLOOR } from '../../src/llm/output-cap.js'
import { ANTHROPIC_PASSBACK_MESSAGE, CHAT_PASSBACK_MESSAGE } from '../../src/llm/mock/rules.js'
import { classifyHttpError } from '../../src/llm/classify.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { adapterFor, ask, requestOf, userSays, WIRES } from './helpers.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

const parse = (body: string): any => JSON.parse(body) // wire JSON, read loosely in assertions
const toolTurn = (reasoning?: string): Message => ({
  role: 'assistant',
  content: [...(reasoning !== undefined ? [{ type: 'reasoning' as const, text: reasoning }] : []), { type: 'tool-call', id: 'c1', name: 'ls', arguments: '{"path":"."}' }],
})
const toolResult: Message = { role: 'tool', callId: 'c1', content: [{ type: 'text', text: 'a.ts' }], isError: false }
const history = (reasoning?: string): Message[] => [userSays('list'), toolTurn(reasoning), toolResult]

async function post(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: response.status, json: await response.json() }
}

describe('reasoning passback in thinking mode', () => {
  it('sends reasoning_content "" with a chat-wire tool call that had no reasoning', () => {
    const body = parse(adapterFor('chat', 'http://127.0.0.1:1').body(requestOf(history())))
    expect(body.messages[2]).toEqual({
      role: 'assistant',
      content: '',
      reasoning_content: '',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{"path":"."}' } }],
    })
  })

  it('sends an empty thinking block first in an Anthropic-wire tool turn that had no reasoning', () => {
    const body = parse(adapterFor('anthropic', 'http://127.0.0.1:1').body(requestOf(history())))
    expect(body.messages[1].content[0]).toEqual({ type: 'thinking', thinking: '' })
    expect(body.messages[1].content[1]).toMatchObject({ type: 'tool_use', id: 'c1' })
  })

  it('leaves reasoning out of a tool turn when thinking is off, and off an answer without tools', () => {
    const chat = adapterFor('chat', 'http://127.0.0.1:1')
    const off = parse(chat.body(requestOf(history(), { config: { model: 'deepseek-flash', effort: 'off' } })))
    expect(off.messages[2]).not.toHaveProperty('reasoning_content')
    const answer = parse(chat.body(requestOf([userSays('hi'), { role: 'assistant', content: [{ type: 'text', text: 'hello' }] }, userSays('again')])))
    expect(answer.messages[2]).toEqual({ role: 'assistant', content: 'hello' })
  })

  it('after a repair sends reasoning with every assistant message, tools or not', () => {
    const config = { model: 'deepseek-flash', effort: 'high' as const, passback: 'every-assistant' as const }
    const messages: Message[] = [userSays('hi'), { role: 'assistant', content: [{ type: 'text', text: 'hello' }] }, userSays('again')]
    expect(parse(adapterFor('chat', 'http://127.0.0.1:1').body(requestOf(messages, { config }))).messages[2].reasoning_content).toBe('')
    expect(parse(adapterFor('anthropic', 'http://127.0.0.1:1').body(requestOf(messages, { config }))).messages[1].content[0]).toEqual({
      type: 'thinking',
      thinking: '',
    })
  })

  it("classifies DeepSeek's passback 400 on either wire as its own error class", () => {
    for (const message of [CHAT_PASSBACK_MESSAGE, ANTHROPIC_PASSBACK_MESSAGE]) {
      const error = classifyHttpError(400, JSON.stringify({ error: { message, type: 'invalid_request_error' } }), new Headers(), { hadKey: true, url: 'u' })
      expect(error.code).toBe('reasoning-passback')
    }
  })

  for (const wire of WIRES) {
    it(`the strict mock refuses a ${wire} tool turn sent without its reasoning, with DeepSeek's message`, async () => {
      mock = await startMockModel({ script: [{ text: 'never' }] })
      const bad =
        wire === 'chat'
          ? post(`${mock.url}/chat/completions`, {
              model: 'deepseek-flash',
              thinking: { type: 'enabled' },
              messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 'ls', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c', content: 'a' }],
            })
          : post(`${mock.url}/anthropic/v1/messages`, {
              model: 'deepseek-flash',
              max_tokens: 100,
              thinking: { type: 'enabled' },
              messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'c', name: 'ls', input: {} }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c', content: 'a' }] }],
            })
      const answer = await bad
      expect(answer.status).toBe(400)
      expect(answer.json.error.message).toBe(wire === 'chat' ? CHAT_PASSBACK_MESSAGE : ANTHROPIC_PASSBACK_MESSAGE)
      expect(mock.requests[0].refused).toBeDefined()
    })

    it(`a ${wire} tool call with empty reasoning is accepted by the strict mock on the next request`, async () => {
      mock = await startMockModel({ script: [{ text: 'fine' }] })
      const result = await ask(adapterFor(wire, mock.url), requestOf(history()))
      expect(result.finish).toBe('stop')
      expect(mock.requests[0].refused).toBeUndefined()
    })
  }
})

describe('the output cap', () => {
  it('is the ceiling while the prompt leaves room, shrinks near the window, and never goes below the floor', () => {
    expect(fittedOutputCap(384_000, 1_048_565, 100_000)).toBe(384_000)
    const near = fittedOutputCap(384_000, 1_048_565, 900_000)
    expect(near).toBeLessThan(1_048_565 - 900_000)
    expect(near).toBeGreaterThan(OUTPUT_FLOOR)
    expect(fittedOutputCap(384_000, 1_048_565, 1_040_000)).toBe(OUTPUT_FLOOR)
    expect(fittedOutputCap(2_000, 1_048_565, 1_040_000)).toBe(2_000)
  })

  for (const wire of WIRES) {
    it(`shrinks max_tokens for a prompt near the 1M window so the strict mock accepts it (${wire})`, async () => {
      mock = await startMockModel({ script: [{ text: 'read it all', repeat: true }] })
      const adapter = adapterFor(wire, mock.url)
      // About 880K tokens of prompt: prompt + 384,000 would be over DeepSeek's 1,048,565-token context length.
      const big = userSays('word '.repeat(704_000))
      const config = adapter.headerConfig!({ model: 'deepseek-flash', effort: 'high' })
      expect(config).toMatchObject({ maxOutputTokens: 384_000, contextWindow: 1_048_565 })
      const fitted = await ask(adapter, requestOf([big], { config }))
      expect(fitted.finish).toBe('stop')
      const sent = (mock.requests[0].body as { max_tokens: number }).max_tokens
      expect(sent).toBeLessThan(384_000)
      expect(mock.requests[0].promptTokens! + sent).toBeLessThanOrEqual(1_048_565)

      // The same prompt with the bare model maximum is what DeepSeek refuses.
      const unfitted = await ask(adapter, requestOf([big], { config: { model: 'deepseek-flash', effort: 'high', maxOutputTokens: 384_000 } }))
      expect(unfitted.finish).toBe('error')
      expect(unfitted.error?.code).toBe('context-too-long')
    }, 60_000)
  }
})

describe('base URLs', () => {
  it('accepts the base with or without /v1 on both wires and never doubles the Anthropic prefix', () => {
    expect(endpointFor('chat', 'https://api.deepseek.com')).toBe('https://api.deepseek.com/chat/completions')
    expect(endpointFor('chat', 'https://api.deepseek.com/v1/')).toBe('https://api.deepseek.com/v1/chat/completions')
    expect(endpointFor('anthropic', 'https://api.deepseek.com')).toBe('https://api.deepseek.com/anthropic/v1/messages')
    expect(endpointFor('anthropic', 'https://api.deepseek.com/v1')).toBe('https://api.deepseek.com/anthropic/v1/messages')
    expect(endpointFor('anthropic', 'https://api.deepseek.com/anthropic')).toBe('https://api.deepseek.com/anthropic/v1/messages')
    expect(endpointFor('chat', 'https://api.deepseek.com/anthropic')).toBe('https://api.deepseek.com/chat/completions')
  })

  it('lets the Anthropic endpoint be set on its own', () => {
    expect(endpointFor('anthropic', 'https://api.deepseek.com/v1', 'https://proxy.example/ds/anthropic')).toBe('https://proxy.example/ds/anthropic/v1/messages')
    expect(endpointFor('anthropic', 'https://x', 'https://proxy.example/anthropic/v1')).toBe('https://proxy.example/anthropic/v1/messages')
  })

  for (const wire of WIRES) {
    it(`reaches the mock through a /v1 base URL (${wire})`, async () => {
      mock = await startMockModel({ script: [{ text: 'ok' }] })
      const result = await ask(adapterFor(wire, `${mock.url}/v1`), requestOf([userSays('hi')]))
      expect(result.finish).toBe('stop')
      expect(mock.requests[0].path).toBe(wire === 'chat' ? '/v1/chat/completions' : '/anthropic/v1/messages')
    })
  }

  it('the strict mock answers a doubled /v1/anthropic prefix with 404, as DeepSeek has no such path', async () => {
    mock = await startMockModel({ script: [{ text: 'never' }] })
    const answer = await post(`${mock.url}/v1/anthropic/v1/messages`, { model: 'deepseek-flash', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
    expect(answer.status).toBe(404)
  })
})

describe('retired models at the mock', () => {
  it('refuses deepseek-chat and deepseek-reasoner as DeepSeek does', async () => {
    mock = await startMockModel({ script: [{ text: 'never', repeat: true }] })
    for (const model of ['deepseek-chat', 'deepseek-reasoner']) {
      const answer = await post(`${mock.url}/chat/completions`, { model, messages: [{ role: 'user', content: 'hi' }] })
      expect(answer.status).toBe(400)
      expect(answer.json.error.message).toBe('Model Not Exist')
    }
  })
})

describe('images on the wire', () => {
  const withImage: Message[] = [
    userSays('look'),
    { role: 'assistant', content: [{ type: 'reasoning', text: 'r' }, { type: 'tool-call', id: 'c1', name: 'read', arguments: '{"file_path":"a.png"}' }] },
    { role: 'tool', callId: 'c1', content: [{ type: 'text', text: 'Image a.png' }, { type: 'image', mimeType: 'image/png', data: 'AAAA' }], isError: false },
  ]

  it('sends a tool result image to a vision model: after the tool messages on the chat wire, inside tool_result on Anthropic', () => {
    const config = { model: 'deepseek-flash', effort: 'high' as const }
    const chat = parse(adapterFor('chat', 'http://127.0.0.1:1').body(requestOf(withImage, { config })))
    expect(chat.messages[3].role).toBe('tool')
    expect(chat.messages[4]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Image from tool call c1:' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }],
    })
    const anthropic = parse(adapterFor('anthropic', 'http://127.0.0.1:1').body(requestOf(withImage, { config })))
    expect(anthropic.messages[2].content[0].content[1]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } })
  })

  it('replaces the image with a note for a model without vision on both wires', () => {
    const config = { model: 'deepseek-v4-pro', effort: 'high' as const }
    const chat = adapterFor('chat', 'http://127.0.0.1:1').body(requestOf(withImage, { config }))
    const anthropic = adapterFor('anthropic', 'http://127.0.0.1:1').body(requestOf(withImage, { config }))
    for (const body of [chat, anthropic]) {
      expect(body).not.toContain('base64')
      expect(body).toContain('[image (image/png) omitted: this model does not accept images]')
    }
  })
})
