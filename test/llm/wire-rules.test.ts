import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { WIRES, adapterFor, ask, requestOf, userSays } from './helpers.js'

let mock: MockModel
beforeEach(async () => {
  mock = await startMockModel()
})
afterEach(async () => {
  await mock.close()
})

describe.each(WIRES)('the %s adapter against the mock', (wire) => {
  it('streams text into one text block and finishes with stop', async () => {
    mock.push({ text: 'Hello there, this answer arrives in several deltas.', chunkSize: 5 })
    const result = await ask(adapterFor(wire, mock.url), requestOf([userSays('hi')]))
    expect(result.finish).toBe('stop')
    expect(result.message.content).toEqual([{ type: 'text', text: 'Hello there, this answer arrives in several deltas.' }])
    expect(result.chunks.filter((c) => c.type === 'text-delta').length).toBeGreaterThan(5)
  })

  it('puts reasoning before text and opens nothing for an empty first reasoning chunk', async () => {
    mock.push({ reasoning: 'Think first.', text: 'Then answer.' })
    const result = await ask(adapterFor(wire, mock.url), requestOf([userSays('hi')]))
    expect(result.message.content).toEqual([
      { type: 'reasoning', text: 'Think first.' },
      { type: 'text', text: 'Then answer.' },
    ])
    expect(result.chunks.some((c) => (c.type === 'reasoning-delta' || c.type === 'text-delta') && c.text === '')).toBe(false)
  })

  it('assembles tool calls by index from an id-and-name delta and argument fragments', async () => {
    mock.push({
      text: 'Let me look.',
      toolCalls: [
        { name: 'read', arguments: { path: 'src/a.ts' }, id: 'call_a' },
        { name: 'grep', arguments: '{"pattern": "x y"}', id: 'call_b' },
      ],
      chunkSize: 3,
    })
    const result = await ask(adapterFor(wire, mock.url), requestOf([userSays('look')]))
    expect(result.finish).toBe('tool-calls')
    expect(result.message.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool-call', id: 'call_a', name: 'read', arguments: '{"path":"src/a.ts"}' },
      { type: 'tool-call', id: 'call_b', name: 'grep', arguments: '{"pattern": "x y"}' },
    ])
  })

  it('reports usage with cache reads apart from uncached input', async () => {
    const long = 'a long and stable instruction. '.repeat(100)
    mock.push({ text: 'one' }, { text: 'two' })
    const adapter = adapterFor(wire, mock.url)
    const first = await ask(adapter, requestOf([userSays('q1')], { system: long }))
    const second = await ask(adapter, requestOf([userSays('q1'), { role: 'assistant', content: [{ type: 'text', text: 'one' }] }, userSays('q2')], { system: long }))
    expect(first.usage?.inputCacheRead).toBe(0)
    expect(second.usage?.inputCacheRead).toBe(mock.requests[1].cacheHitTokens)
    expect(second.usage?.inputCacheRead).toBeGreaterThan(0)
    expect(second.usage!.inputUncached + second.usage!.inputCacheRead).toBe(mock.requests[1].promptTokens)
    expect(second.usage!.output).toBeGreaterThan(0)
  })

  it('treats a stream that ends before its end marker as a transport error, not a success', async () => {
    mock.push({ text: 'half an answer', cut: true })
    const result = await ask(adapterFor(wire, mock.url), requestOf([userSays('hi')]))
    expect(result.finish).toBe('error')
    expect(result.error?.code).toBe('transport')
    expect(result.error?.detail).toMatch(/stream closed/)
  })

  it('treats an unparseable event as an error', async () => {
    mock.push({ raw: wire === 'chat' ? 'data: {"choices": [\n\n' : 'event: message_start\ndata: not json\n\n' })
    const result = await ask(adapterFor(wire, mock.url), requestOf([userSays('hi')]))
    expect(result.finish).toBe('error')
    expect(result.error?.code).toBe('server')
    expect(result.error?.detail).toMatch(/unparseable/)
  })

  it('turns a stop with no content at all into an empty-response error', async () => {
    mock.push({})
    const result = await ask(adapterFor(wire, mock.url), requestOf([userSays('hi')]))
    expect(result.finish).toBe('error')
    expect(result.error?.code).toBe('empty-response')
    expect(result.error?.message).toBe('DeepSeek returned an empty answer; try again.')
  })

  it('maps a length finish to max-tokens and drops its partial tool calls', async () => {
    mock.push({ text: 'Writing the file', toolCalls: [{ name: 'write', arguments: '{"path": "a.t' }], finish: 'length' })
    const result = await ask(adapterFor(wire, mock.url), requestOf([userSays('write')]))
    expect(result.finish).toBe('max-tokens')
    expect(result.message.content).toEqual([{ type: 'text', text: 'Writing the file' }])
  })

  it('sends the key in the wire header and the mock records no secret', async () => {
    mock.push({ text: 'ok' })
    await ask(adapterFor(wire, mock.url, { apiKey: 'sk-secret' }), requestOf([userSays('hi')]))
    const recorded = JSON.stringify(mock.requests[0])
    expect(recorded).not.toContain('sk-secret')
    expect(mock.requests[0].path).toBe(wire === 'chat' ? '/chat/completions' : '/anthropic/v1/messages')
  })
})

describe('the chat adapter on chat-wire details', () => {
  it('reads usage from a trailing chunk after the finish chunk', async () => {
    mock.push({ text: 'answer', usage: 'trailing' })
    const result = await ask(adapterFor('chat', mock.url), requestOf([userSays('hi')]))
    expect(result.finish).toBe('stop')
    expect(result.usage).toEqual({ inputUncached: mock.requests[0].promptTokens, inputCacheRead: 0, output: 2, reasoning: 0 })
  })

  it('reports reasoning tokens from completion_tokens_details', async () => {
    mock.push({ reasoning: 'abcdefgh', text: 'done' })
    const result = await ask(adapterFor('chat', mock.url), requestOf([userSays('hi')]))
    expect(result.usage?.reasoning).toBe(2)
    expect(result.usage?.output).toBe(3)
  })

  it('falls back to prompt_tokens_details.cached_tokens when the DeepSeek cache fields are absent', async () => {
    const usage = { prompt_tokens: 200, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 128 } }
    const raw =
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }], usage })}\n\n` + 'data: [DONE]\n\n'
    mock.push({ raw })
    const result = await ask(adapterFor('chat', mock.url), requestOf([userSays('hi')]))
    expect(result.usage).toEqual({ inputUncached: 72, inputCacheRead: 128, output: 5, reasoning: 0 })
  })

  it('classifies an error object inside a 200 stream', async () => {
    mock.push({ raw: 'data: {"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}\n\n' })
    const result = await ask(adapterFor('chat', mock.url), requestOf([userSays('hi')]))
    expect(result.error?.code).toBe('rate-limit')
  })
})

describe('the anthropic adapter on anthropic-wire details', () => {
  it('classifies an error event inside the stream', async () => {
    mock.push({ raw: 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n' })
    const result = await ask(adapterFor('anthropic', mock.url), requestOf([userSays('hi')]))
    expect(result.finish).toBe('error')
    expect(result.error?.code).toBe('server')
  })
})
