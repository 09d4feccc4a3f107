import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EXHAUSTED_TEXT, parseScript, startMockModel, type MockModel } from '../support/mock-model.js'
import { adapterFor, ask, requestOf, userSays } from './helpers.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

const post = async (url: string, body: unknown, headers: Record<string, string> = {}): Promise<any> => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  return res.json() // wire JSON, read loosely in assertions
}

describe('the mock model server', () => {
  it('answers an agent-style script: a tool call, then text after the tool result', async () => {
    mock = await startMockModel({
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'ls' } }] }, { text: 'There are two files.' }],
    })
    const adapter = adapterFor('chat', mock.url)
    const first = await ask(adapter, requestOf([userSays('list files')]))
    const call = first.message.content[0]
    expect(call).toEqual({ type: 'tool-call', id: 'call_0_0', name: 'bash', arguments: '{"command":"ls"}' })
    const second = await ask(
      adapter,
      requestOf([userSays('list files'), first.message, { role: 'tool', callId: 'call_0_0', content: [{ type: 'text', text: 'a b' }], isError: false }]),
    )
    expect(second.message.content).toEqual([{ type: 'text', text: 'There are two files.' }])
  })

  it('picks responses by matching the last user message, leaving the others for later', async () => {
    mock = await startMockModel({
      script: [
        { match: '/^deploy/i', text: 'deploying' },
        { match: 'weather', text: 'sunny' },
        { text: 'fallback' },
      ],
    })
    const adapter = adapterFor('anthropic', mock.url)
    const text = async (prompt: string): Promise<unknown> => (await ask(adapter, requestOf([userSays(prompt)]))).message.content
    expect(await text('what is the weather?')).toEqual([{ type: 'text', text: 'sunny' }])
    expect(await text('Deploy now')).toEqual([{ type: 'text', text: 'deploying' }])
    expect(await text('anything')).toEqual([{ type: 'text', text: 'fallback' }])
  })

  it('says clearly that its script is exhausted instead of failing', async () => {
    mock = await startMockModel({ script: [{ text: 'only one' }] })
    const adapter = adapterFor('chat', mock.url)
    await ask(adapter, requestOf([userSays('1')]))
    const second = await ask(adapter, requestOf([userSays('2')]))
    expect(second.finish).toBe('stop')
    expect(second.message.content).toEqual([{ type: 'text', text: EXHAUSTED_TEXT }])
    expect(mock.requests[1].exhausted).toBe(true)
  })

  it('repeats a response marked repeat', async () => {
    mock = await startMockModel({ script: [{ text: 'always', repeat: true }] })
    const adapter = adapterFor('chat', mock.url)
    for (let i = 0; i < 3; i++) expect((await ask(adapter, requestOf([userSays(`${i}`)]))).message.content).toEqual([{ type: 'text', text: 'always' }])
  })

  it('lists models on GET /models', async () => {
    mock = await startMockModel()
    const res = await fetch(`${mock.url}/models`)
    const body = (await res.json()) as { data: { id: string }[] }
    expect(body.data.map((m) => m.id)).toContain('deepseek-v4-flash')
  })

  it('answers without streaming on both wires when the body does not ask for a stream', async () => {
    mock = await startMockModel({ script: [{ reasoning: 'r', text: 't', toolCalls: [{ name: 'ls', id: 'c1' }] }, { text: 'plain' }] })
    const chat = await post(`${mock.url}/chat/completions`, { model: 'deepseek-v4-flash', messages: [{ role: 'user', content: 'hi' }] })
    expect(chat.choices[0].message).toEqual({
      role: 'assistant',
      content: 't',
      reasoning_content: 'r',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
    })
    expect(chat.choices[0].finish_reason).toBe('tool_calls')
    expect(chat.usage.prompt_cache_miss_tokens).toBe(chat.usage.prompt_tokens)
    const messages = await post(`${mock.url}/anthropic/v1/messages`, { model: 'x', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
    expect(messages.content).toEqual([{ type: 'text', text: 'plain' }])
    expect(messages.stop_reason).toBe('end_turn')
  })

  it('records requests without credentials and appends them to a JSONL file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rein-mock-')), 'requests.jsonl')
    mock = await startMockModel({ script: [{ text: 'a' }, { text: 'b' }], recordFile: file })
    await post(`${mock.url}/chat/completions`, { messages: [] }, { authorization: 'Bearer sk-top-secret' })
    await post(`${mock.url}/anthropic/v1/messages`, { messages: [] }, { 'x-api-key': 'sk-also-secret' })
    const lines = readFileSync(file, 'utf8').trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines.join('')).not.toMatch(/secret/)
    expect(JSON.parse(lines[0])).toMatchObject({ index: 0, method: 'POST', path: '/chat/completions', wire: 'chat', body: { messages: [] } })
    expect(mock.requests[1].headers['content-type']).toBe('application/json')
  })

  it('reports cache hits as the longest common prefix with any earlier request, in 64-token units', async () => {
    mock = await startMockModel({ script: [{ text: '1', repeat: true }] })
    const shared = 'y'.repeat(4000)
    const send = (tail: string): Promise<any> =>
      post(`${mock!.url}/chat/completions`, { model: 'm', messages: [{ role: 'user', content: shared + tail }] })
    const first = await send('A')
    const unrelated = await post(`${mock.url}/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'zzz' }] })
    const third = await send('B')
    expect(first.usage.prompt_cache_hit_tokens).toBe(0)
    expect(unrelated.usage.prompt_cache_hit_tokens).toBe(0)
    // The shared prefix is a little over 4000 bytes, about 1000 tokens, rounded down to 960.
    expect(third.usage.prompt_cache_hit_tokens).toBe(960)
    expect(third.usage.prompt_cache_miss_tokens).toBe(third.usage.prompt_tokens - 960)
  })

  it('answers a body that is not JSON with a 400 and an unknown path with a 404', async () => {
    mock = await startMockModel()
    const bad = await fetch(`${mock.url}/chat/completions`, { method: 'POST', body: '{nope' })
    expect(bad.status).toBe(400)
    const missing = await fetch(`${mock.url}/v2/other`, { method: 'POST', body: '{}' })
    expect(missing.status).toBe(404)
  })

  it('rejects a malformed script with a sentence naming the entry', () => {
    expect(() => parseScript({ text: 'x' }, 's.json')).toThrow('The script s.json must be a JSON array of responses.')
    expect(() => parseScript([{ text: 'ok' }, { toolCalls: [{ arguments: {} }] }], 's.json')).toThrow(/Response 1 in s.json/)
    expect(() => parseScript([{ error: { body: 'x' } }], 's.json')).toThrow(/numeric status/)
  })
})
