import { createServer } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ModelErrorCode } from '../../src/llm/errors.js'
import { startMockModel, type MockError, type MockModel } from '../support/mock-model.js'
import { WIRES, adapterFor, ask, eventually, requestOf, userSays } from './helpers.js'

let mock: MockModel
beforeEach(async () => {
  mock = await startMockModel()
})
afterEach(async () => {
  await mock.close()
})

const deepseekError = (message: string, type = 'invalid_request_error'): unknown => ({ error: { message, type, param: null, code: type } })

/** Recorded shapes of DeepSeek's HTTP failures and the class and sentence each must become. */
const HTTP_CASES: { name: string; error: MockError; code: ModelErrorCode; sentence: RegExp | string; key?: string }[] = [
  {
    name: '401 with a key',
    error: { status: 401, body: deepseekError('Authentication Fails, Your api key: ****abcd is invalid', 'authentication_error') },
    code: 'auth',
    key: 'sk-wrong',
    sentence: 'DeepSeek rejected the API key (401). Check DEEPSEEK_API_KEY.',
  },
  {
    name: '401 without a key',
    error: { status: 401, body: deepseekError('Authentication Fails (no such user)', 'authentication_error') },
    code: 'auth',
    sentence: 'No DeepSeek API key was sent (401). Set DEEPSEEK_API_KEY.',
  },
  { name: '403', error: { status: 403, body: deepseekError('Forbidden', 'permission_error') }, code: 'auth', key: 'sk-x', sentence: /rejected the API key \(403\)/ },
  { name: '402', error: { status: 402, body: deepseekError('Insufficient Balance', 'unknown_error') }, code: 'quota', sentence: /balance is used up \(402\)/ },
  {
    name: 'balance wording on another status',
    error: { status: 400, body: deepseekError('Insufficient balance in your account') },
    code: 'quota',
    sentence: /balance is used up/,
  },
  { name: '429', error: { status: 429, body: deepseekError('Rate limit reached', 'rate_limit_error') }, code: 'rate-limit', sentence: /rate-limiting this key \(429\)/ },
  {
    name: '400 naming the context length',
    error: {
      status: 400,
      body: deepseekError("This model's maximum context length is 131072 tokens. However, you requested 140000 tokens. Please reduce the length of the messages."),
    },
    code: 'context-too-long',
    sentence: /longer than the model's context window \(400\)/,
  },
  {
    name: 'other 400',
    error: { status: 400, body: deepseekError('Invalid tool_call_id: call_9') },
    code: 'invalid-request',
    sentence: 'DeepSeek refused the request as invalid (400): "Invalid tool_call_id: call_9". Check the model name and settings.',
  },
  { name: '422', error: { status: 422, body: deepseekError('temperature must be <= 2') }, code: 'invalid-request', sentence: /invalid \(422\)/ },
  { name: '500', error: { status: 500, body: deepseekError('Internal error', 'api_error') }, code: 'server', sentence: /server error \(500\)/ },
  {
    name: '503 overloaded',
    error: { status: 503, body: deepseekError('Server overloaded, please try again later', 'service_unavailable_error') },
    code: 'server',
    sentence: 'DeepSeek is overloaded (503); try again in a moment.',
  },
  { name: 'a 502 with an HTML body', error: { status: 502, body: '<html>Bad Gateway</html>' }, code: 'server', sentence: /server error \(502\)/ },
]

describe.each(WIRES)('the %s adapter classifies failures', (wire) => {
  it.each(HTTP_CASES)('$name becomes $code with one sentence for the user', async ({ error, code, sentence, key }) => {
    mock.push({ error })
    const result = await ask(adapterFor(wire, mock.url, { apiKey: key }), requestOf([userSays('hi')]))
    expect(result.finish).toBe('error')
    expect(result.error?.code).toBe(code)
    expect(result.error?.status).toBe(error.status)
    if (typeof sentence === 'string') expect(result.error?.message).toBe(sentence)
    else expect(result.error?.message).toMatch(sentence)
    expect(result.message.content).toEqual([])
  })

  it('keeps Retry-After and the request id of a rate limit', async () => {
    mock.push({ error: { status: 429, body: deepseekError('Rate limit reached'), headers: { 'retry-after': '3', 'x-request-id': 'req-42' } } })
    const result = await ask(adapterFor(wire, mock.url), requestOf([userSays('hi')]))
    expect(result.error?.retryAfterMs).toBe(3000)
    expect(result.error?.requestId).toBe('req-42')
    expect(result.error?.toJSON()).toEqual({ code: 'rate-limit', message: result.error?.message, status: 429, requestId: 'req-42' })
  })

  it('times out when no byte arrives for the idle period', async () => {
    mock.push({ text: 'too late', delayMs: 2_000 })
    const result = await ask(adapterFor(wire, mock.url, { idleTimeoutMs: 150 }), requestOf([userSays('hi')]))
    expect(result.finish).toBe('error')
    expect(result.error?.code).toBe('timeout')
    expect(result.error?.message).toMatch(/sent nothing for 0 s/)
  })

  it('times out when the stream stalls between events', async () => {
    mock.push({ text: 'slow answer', chunkSize: 2, chunkDelayMs: 1_000 })
    const result = await ask(adapterFor(wire, mock.url, { idleTimeoutMs: 200 }), requestOf([userSays('hi')]))
    expect(result.error?.code).toBe('timeout')
    const said = result.message.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
    expect('slow answer'.startsWith(said) && said.length < 'slow answer'.length).toBe(true)
  })

  it('reports a refused connection as a transport error naming the address', async () => {
    const url = await closedPortUrl()
    const result = await ask(adapterFor(wire, url), requestOf([userSays('hi')]))
    expect(result.finish).toBe('error')
    expect(result.error?.code).toBe('transport')
    expect(result.error?.message).toBe(`Could not reach DeepSeek at ${url}${wire === 'chat' ? '/chat/completions' : '/anthropic/v1/messages'}; check the network and DEEPSEEK_BASE_URL.`)
  })

  it('stops promptly on abort mid-stream, keeps what arrived and leaves no open socket', async () => {
    mock.push({ text: 'x'.repeat(400), chunkSize: 4, chunkDelayMs: 50 })
    const adapter = adapterFor(wire, mock.url)
    const controller = new AbortController()
    const seen: string[] = []
    let finish: string | undefined
    for await (const chunk of adapter.stream(adapter.body(requestOf([userSays('hi')])), { signal: controller.signal })) {
      if (chunk.type === 'text-delta') {
        seen.push(chunk.text)
        if (seen.length === 3) {
          controller.abort()
        }
      }
      if (chunk.type === 'finish') {
        finish = chunk.reason
        expect(chunk.error?.code).toBe('aborted')
      }
    }
    expect(finish).toBe('aborted')
    expect(seen.length).toBe(3)
    // Nothing after the abort was passed on, and the server (still 97 events from its end) saw the socket close.
    await eventually(() => mock.connections === 0, 'the server saw the connection close')
  })

  it('answers aborted at once when the signal is already aborted, without a request', async () => {
    const adapter = adapterFor(wire, mock.url)
    const result = await ask(adapter, requestOf([userSays('hi')]), AbortSignal.abort())
    expect(result.finish).toBe('aborted')
    expect(mock.requests).toHaveLength(0)
  })

  it('closes the socket when the consumer stops reading early', async () => {
    mock.push({ text: 'y'.repeat(200), chunkSize: 2, chunkDelayMs: 20 })
    const adapter = adapterFor(wire, mock.url)
    for await (const chunk of adapter.stream(adapter.body(requestOf([userSays('hi')])))) {
      if (chunk.type === 'text-delta') break
    }
    await eventually(() => mock.connections === 0, 'the server saw the connection close')
  })
})

/** A loopback URL on which nothing listens: a port that was free a moment ago. */
async function closedPortUrl(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}
