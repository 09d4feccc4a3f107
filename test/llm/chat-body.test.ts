import { describe, expect, it } from 'vitest'
import { createAdapter } from '../../src/llm/create.js'
import type { Message, ToolSchema } from '../../src/llm/messages.js'
import { requestOf, userSays } from './helpers.js'

const chat = createAdapter({ wire: 'chat', baseUrl: 'http://127.0.0.1:1', apiKey: () => undefined })
const parse = (body: string): any => JSON.parse(body) // the wire JSON is read loosely in assertions

const tool = (name: string): ToolSchema => ({ name, description: `the ${name} tool`, parameters: { type: 'object', properties: {} } })

describe('the chat-completions request body', () => {
  it('is the same bytes for the same request, with tools sorted by name', () => {
    const request = requestOf([userSays('hi')], { tools: [tool('write'), tool('bash'), tool('read')] })
    const body = chat.body(request)
    expect(chat.body(structuredClone(request))).toBe(body)
    expect(parse(body).tools.map((t: any) => t.function.name)).toEqual(['bash', 'read', 'write'])
    expect(Object.keys(parse(body))).toEqual(['model', 'messages', 'tools', 'thinking', 'reasoning_effort', 'max_tokens', 'stream', 'stream_options'])
    expect(parse(body).stream_options).toEqual({ include_usage: true })
  })

  it('puts the system prompt first and sends the model id verbatim', () => {
    const body = parse(chat.body(requestOf([userSays('hi')], { config: { model: 'my-own/Model-X', effort: 'high' } })))
    expect(body.model).toBe('my-own/Model-X')
    expect(body.messages[0]).toEqual({ role: 'system', content: 'You are a test.' })
    expect(body.max_tokens).toBeUndefined()
  })

  it('maps effort off to thinking disabled with no effort field, and the others to reasoning_effort', () => {
    const off = parse(chat.body(requestOf([userSays('hi')], { config: { model: 'deepseek-v4-flash', effort: 'off' } })))
    expect(off.thinking).toEqual({ type: 'disabled' })
    expect('reasoning_effort' in off).toBe(false)
    for (const effort of ['low', 'high', 'max'] as const) {
      const body = parse(chat.body(requestOf([userSays('hi')], { config: { model: 'deepseek-v4-pro', effort } })))
      expect(body.thinking).toEqual({ type: 'enabled' })
      expect(body.reasoning_effort).toBe(effort)
    }
  })

  it('sends the output cap from the config, else the catalog', () => {
    const capped = parse(chat.body(requestOf([userSays('hi')], { config: { model: 'deepseek-v4-flash', effort: 'high', maxOutputTokens: 1000 } })))
    expect(capped.max_tokens).toBe(1000)
    expect(parse(chat.body(requestOf([userSays('hi')]))).max_tokens).toBe(384_000)
  })

  it('serializes assistant turns with empty content, byte-exact reasoning and tool calls, and tool results', () => {
    const reasoning = '  Think: ünïcödé, "quotes", tabs\t and a trailing newline\n'
    const messages: Message[] = [
      userSays('list files'),
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: reasoning },
          { type: 'tool-call', id: 'call_1', name: 'ls', arguments: '{ "path" : "." }' },
        ],
      },
      { role: 'tool', callId: 'call_1', content: [], isError: false },
      { role: 'tool', callId: 'call_2', content: [{ type: 'text', text: 'a.ts' }, { type: 'text', text: 'b.ts' }], isError: true },
    ]
    const body = parse(chat.body(requestOf(messages)))
    expect(body.messages[2]).toEqual({
      role: 'assistant',
      content: '',
      reasoning_content: reasoning,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ls', arguments: '{ "path" : "." }' } }],
    })
    expect(body.messages[3]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '(no output)' })
    expect(body.messages[4]).toEqual({ role: 'tool', tool_call_id: 'call_2', content: 'a.ts\n\nb.ts' })
  })

  it('leaves out reasoning_content and tool_calls on an assistant turn without them', () => {
    const body = parse(chat.body(requestOf([userSays('hi'), { role: 'assistant', content: [{ type: 'text', text: 'hello' }] }])))
    expect(body.messages[2]).toEqual({ role: 'assistant', content: 'hello' })
  })

  it('joins text blocks of one user message as paragraphs and replaces images for a text-only model', () => {
    const body = parse(
      chat.body(
        requestOf([
          {
            role: 'user',
            content: [
              { type: 'text', text: '<system-reminder>today</system-reminder>' },
              { type: 'text', text: 'fix it' },
              { type: 'image', mimeType: 'image/png', data: 'AAAA' },
            ],
          },
        ], { config: { model: 'deepseek-v4-pro', effort: 'high' } }),
      ),
    )
    expect(body.messages[1].content).toBe(
      '<system-reminder>today</system-reminder>\n\nfix it\n\n[image (image/png) omitted: this model does not accept images]',
    )
  })

  it('sends images as content parts to a model the settings say accepts them, as its logged header records', () => {
    const vision = createAdapter({ wire: 'chat', baseUrl: 'http://127.0.0.1:1', models: { 'vision-x': { images: true } } })
    const body = parse(
      vision.body(
        requestOf([{ role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image', mimeType: 'image/png', data: 'AAAA' }] }], {
          config: vision.headerConfig!({ model: 'vision-x', effort: 'high' }),
        }),
      ),
    )
    expect(body.messages[1].content).toEqual([
      { type: 'text', text: 'what is this' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ])
  })
})
