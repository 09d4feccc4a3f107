import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EXHAUSTED_TEXT, parseScript, startMockModel, type MockModel } from '../support/mock-model.js'
import { adapterFor, ask, requestOf, userSays } from './helpers.js'
import { INTERVAL_TOKENS } from '../../src/llm/mock/prompt-cache.js'

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
    const messages = await post(`${mock.url}/anthropic/v1/messages`, { model: 'deepseek-flash', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
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

  it('hits the cache only on whole cache-prefix units: a request that extends an earlier one hits its input unit', async () => {
    mock = await startMockModel({ script: [{ text: 'Paris.', repeat: true }] })
    const system = { role: 'system', content: 'You are a helpful assistant. '.repeat(40) }
    const q1 = { role: 'user', content: 'What is the capital of France?' }
    const first = await post(`${mock.url}/chat/completions`, { model: 'deepseek-flash', messages: [system, q1] })
    const second = await post(`${mock.url}/chat/completions`, {
      model: 'deepseek-flash',
      messages: [system, q1, { role: 'assistant', content: 'Paris.' }, { role: 'user', content: 'And of Spain?' }],
    })
    expect(first.usage.prompt_cache_hit_tokens).toBe(0)
    // The end-of-output unit: the first prompt followed by the answer exactly as it was given.
    const unit = `[[],null,[${JSON.stringify({ content: system.content, role: 'system' })},${JSON.stringify({ content: q1.content, role: 'user' })},${JSON.stringify({ content: 'Paris.', role: 'assistant' })}`
    expect(second.usage.prompt_cache_hit_tokens).toBe(Math.floor(Buffer.byteLength(unit) / 4))
  })

  it('does not hit a common prefix the first time it is seen, but persists it as a unit for later requests', async () => {
    mock = await startMockModel({ script: [{ text: '1', repeat: true }] })
    const shared = 'y'.repeat(4000)
    const send = (tail: string): Promise<any> =>
      post(`${mock!.url}/chat/completions`, { model: 'deepseek-flash', messages: [{ role: 'user', content: shared + tail }] })
    const ab = await send('B')
    const ac = await send('C')
    const ad = await send('D')
    expect(ab.usage.prompt_cache_hit_tokens).toBe(0)
    expect(ac.usage.prompt_cache_hit_tokens).toBe(0)
    // A + D reuses the common prefix A that DeepSeek persisted when it saw A + B and A + C.
    const common = `[[],null,[{"content":"${shared}`
    expect(ad.usage.prompt_cache_hit_tokens).toBe(Math.floor(Buffer.byteLength(common) / 4))
    expect(ad.usage.prompt_cache_miss_tokens).toBe(ad.usage.prompt_tokens - ad.usage.prompt_cache_hit_tokens)
  })

  it('persists units at fixed intervals along a long input, so a long prefix hits before its end', async () => {
    mock = await startMockModel({ script: [{ text: '1', repeat: true }] })
    const long = 'z'.repeat(40_000)
    await post(`${mock.url}/chat/completions`, { model: 'deepseek-flash', messages: [{ role: 'user', content: `${long}A` }] })
    const other = await post(`${mock.url}/chat/completions`, { model: 'deepseek-flash', messages: [{ role: 'user', content: `${long}B` }] })
    // 40,000 characters hold two whole 16,384-character interval units.
    expect(other.usage.prompt_cache_hit_tokens).toBe(Math.floor((2 * INTERVAL_TOKENS * 4) / 4))
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
