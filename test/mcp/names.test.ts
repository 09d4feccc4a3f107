import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { mcpToolName, TOOL_NAME } from '../../src/mcp/index.js'
import { uniqueToolNames } from '../../src/mcp/names.js'

describe('MCP tool names', () => {
  it('are mcp__<server>__<tool> when both are already clean', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('mcp__github__create_issue')
  })

  it('replace characters DeepSeek rejects with underscores', () => {
    expect(mcpToolName('my.server', 'files/read file')).toBe('mcp__my_server__files_read_file')
  })

  it('stay within 64 characters and stay distinct when long names share a prefix', () => {
    const long = 'x'.repeat(80)
    const a = mcpToolName('server', `${long}_a`)
    const b = mcpToolName('server', `${long}_b`)
    expect(a).toHaveLength(64)
    expect(a).not.toBe(b)
    expect(a).toMatch(TOOL_NAME)
  })

  it('tell apart two tools that collide after cleaning', () => {
    const [first, second] = uniqueToolNames('s', ['a.b', 'a_b'])
    expect(first).toBe('mcp__s__a_b')
    expect(second).not.toBe(first)
    expect(second).toMatch(TOOL_NAME)
  })

  it('always match what DeepSeek accepts, whatever the server sends', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1, maxLength: 200 }), (server, tool) => {
        expect(mcpToolName(server, tool)).toMatch(TOOL_NAME)
      }),
    )
  })
})
