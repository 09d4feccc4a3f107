import { describe, expect, it } from 'vitest'
import { toToolOutput } from '../../src/mcp/result.js'
import { argumentsSchema, modelSchema } from '../../src/mcp/schema.js'

describe('MCP results as the model sees them', () => {
  it('keep an error text that already says Error as it is', () => {
    expect(toToolOutput({ content: [{ type: 'text', text: 'Error: nope' }], isError: true })).toEqual({
      content: [{ type: 'text', text: 'Error: nope' }],
      isError: true,
    })
  })

  it('give an error with no text a sentence of its own', () => {
    expect(toToolOutput({ content: [], isError: true }).content).toEqual([{ type: 'text', text: 'Error: the MCP tool reported a failure.' }])
  })

  it('use structured content as JSON text when there is no content', () => {
    expect(toToolOutput({ content: [], structuredContent: { n: 1 } })).toEqual({ content: [{ type: 'text', text: '{"n":1}' }] })
  })

  it('describe audio, binary resources and unknown blocks instead of failing', () => {
    const output = toToolOutput({
      content: [
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/octet-stream', blob: 'AAAA' } },
        { type: 'hologram' },
        'garbage',
      ],
    })
    expect(output.content.map((b) => (b.type === 'text' ? b.text : b.type))).toEqual([
      '[audio (audio/wav) not shown: the model cannot hear]',
      '[binary resource <file:///a.bin> (application/octet-stream) not shown]',
      '[hologram content not shown]',
    ])
  })
})

describe('MCP input schemas', () => {
  it('drop only the $schema marker from what the model reads', () => {
    expect(modelSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } } })).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
    })
  })

  it('become an empty object schema when the server sends none', () => {
    expect(modelSchema(undefined)).toEqual({ type: 'object', properties: {} })
  })

  it('keep arguments the schema does not name', () => {
    expect(argumentsSchema({ type: 'object', properties: { a: { type: 'string' } } }).parse({ a: 'x', extra: 1 })).toEqual({ a: 'x', extra: 1 })
  })

  it('resolve draft-7 definitions', () => {
    const schema = argumentsSchema({ type: 'object', properties: { a: { $ref: '#/definitions/s' } }, definitions: { s: { type: 'string' } } })
    expect(schema.safeParse({ a: 'x' }).success).toBe(true)
    expect(schema.safeParse({ a: 1 }).success).toBe(false)
  })

  it('fall back to checking required keys when zod cannot read the schema', () => {
    const schema = argumentsSchema({ type: 'object', properties: { a: {} }, required: ['a'], if: { required: ['a'] }, then: {} })
    expect(schema.safeParse({ a: 1, b: 2 }).success).toBe(true)
    expect(schema.safeParse({ b: 2 }).success).toBe(false)
    expect(schema.safeParse('text').success).toBe(false)
  })
})
