import { describe, expect, it } from 'vitest'
import { createAdapter } from '../../src/llm/create.js'
import type { Message, ToolSchema } from '../../src/llm/messages.js'
import { requestOf, userSays } from './helpers.js'

const anthropic = createAdapter({ wire: 'anthropic', baseUrl: 'http://127.0.0.1:1', apiKey: () => undefined })
const parse = (body: string): any => JSON.parse(body) // the wire JSON is read loosely in assertions

const tool = (name: string): ToolSchema => ({ name, description: `the ${name} tool`, parameters: { type: 'object' } })

describe('the Anthropic-wire request body', () => {
  it('has a fixed key order, a top-level system, tools sorted by name, and a required output cap', () => {
    const body = anthropic.body(requestOf([userSays('hi')], { tools: [tool('write'), tool('bash')] }))
    expect(anthropic.body(requestOf([userSays('hi')], { tools: [tool('write'), tool('bash')] }))).toBe(body)
    const parsed = parse(body)
    expect(Object.keys(parsed)).toEqual(['model', 'max_tokens', 'system', 'messages', 'tools', 'thinking', 'output_config', 'stream'])
    expect(parsed.system).toBe('You are a test.')
    expect(parsed.tools).toEqual([
      { name: 'bash', description: 'the bash tool', input_schema: { type: 'object' } },
      { name: 'write', description: 'the write tool', input_schema: { type: 'object' } },
    ])
    expect(parsed.max_tokens).toBe(384_000)
    expect(parse(anthropic.body(requestOf([userSays('hi')], { config: { model: 'unknown-model', effort: 'high' } }))).max_tokens).toBe(32_768)
  })

  it('maps effort to thinking and output_config.effort', () => {
    const off = parse(anthropic.body(requestOf([userSays('hi')], { config: { model: 'deepseek-v4-flash', effort: 'off' } })))
    expect(off.thinking).toEqual({ type: 'disabled' })
    expect('output_config' in off).toBe(false)
    const max = parse(anthropic.body(requestOf([userSays('hi')], { config: { model: 'deepseek-v4-flash', effort: 'max' } })))
    expect(max.thinking).toEqual({ type: 'enabled' })
    expect(max.output_config).toEqual({ effort: 'max' })
  })

  it('sends thinking, text and tool_use blocks, and merges tool results and a following prompt into one user message', () => {
    const messages: Message[] = [
      userSays('look'),
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'plan' },
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', id: 'toolu_1', name: 'read', arguments: '{"path":"a"}' },
          { type: 'tool-call', id: 'toolu_2', name: 'read', arguments: 'not json' },
        ],
      },
      { role: 'tool', callId: 'toolu_1', content: [{ type: 'text', text: 'contents' }], isError: false },
      { role: 'tool', callId: 'toolu_2', content: [], isError: true },
      userSays('and now?'),
    ]
    const parsed = parse(anthropic.body(requestOf(messages)))
    expect(parsed.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'look' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'plan' },
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } },
          { type: 'tool_use', id: 'toolu_2', name: 'read', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'contents' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: '(no output)', is_error: true },
          { type: 'text', text: 'and now?' },
        ],
      },
    ])
  })
})
