import { describe, expect, it } from 'vitest'
import { ResponseAssembler } from '../../src/llm/assemble.js'
import { modelError } from '../../src/llm/describe.js'
import type { StreamChunk } from '../../src/llm/stream.js'

function assemble(chunks: StreamChunk[]): ReturnType<ResponseAssembler['result']> {
  const assembler = new ResponseAssembler()
  for (const chunk of chunks) assembler.push(chunk)
  return assembler.result()
}

describe('the response assembler', () => {
  it('orders reasoning, then text, then tool calls by index, whatever order the deltas came in', () => {
    const result = assemble([
      { type: 'tool-call-delta', index: 1, id: 'b', name: 'grep', argumentsDelta: '{"p":' },
      { type: 'text-delta', text: 'Hel' },
      { type: 'tool-call-delta', index: 0, id: 'a', name: 'read', argumentsDelta: '{}' },
      { type: 'reasoning-delta', text: 'think' },
      { type: 'text-delta', text: 'lo' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '"x"}' },
      { type: 'finish', reason: 'tool-calls' },
    ])
    expect(result.message.content).toEqual([
      { type: 'reasoning', text: 'think' },
      { type: 'text', text: 'Hello' },
      { type: 'tool-call', id: 'a', name: 'read', arguments: '{}' },
      { type: 'tool-call', id: 'b', name: 'grep', arguments: '{"p":"x"}' },
    ])
    expect(result.finish).toBe('tool-calls')
  })

  it('keeps the id and name from the first delta of an index', () => {
    const result = assemble([
      { type: 'tool-call-delta', index: 0, id: 'first', name: 'read', argumentsDelta: '' },
      { type: 'tool-call-delta', index: 0, id: 'second', name: 'other', argumentsDelta: '{}' },
      { type: 'finish', reason: 'stop' },
    ])
    expect(result.message.content).toEqual([{ type: 'tool-call', id: 'first', name: 'read', arguments: '{}' }])
    expect(result.finish).toBe('tool-calls')
  })

  it('drops tool calls after max-tokens but keeps the text', () => {
    const result = assemble([
      { type: 'text-delta', text: 'partial' },
      { type: 'tool-call-delta', index: 0, id: 'a', name: 'write', argumentsDelta: '{"con' },
      { type: 'finish', reason: 'max-tokens' },
    ])
    expect(result.message.content).toEqual([{ type: 'text', text: 'partial' }])
    expect(result.finish).toBe('max-tokens')
  })

  it('keeps what was seen and no tool calls when the stream was aborted or failed', () => {
    const error = modelError('transport', { detail: 'reset' })
    const result = assemble([
      { type: 'text-delta', text: 'seen' },
      { type: 'tool-call-delta', index: 0, id: 'a', name: 'read', argumentsDelta: '{}' },
      { type: 'finish', reason: 'error', error },
    ])
    expect(result.message.content).toEqual([{ type: 'text', text: 'seen' }])
    expect(result.error).toBe(error)
    expect(assemble([{ type: 'text-delta', text: 'x' }]).finish).toBe('aborted')
  })

  it('reports the usage chunk it saw', () => {
    const usage = { inputUncached: 10, inputCacheRead: 64, output: 5, reasoning: 2 }
    expect(assemble([{ type: 'text-delta', text: 'x' }, { type: 'usage', usage }, { type: 'finish', reason: 'stop' }]).usage).toEqual(usage)
  })
})
