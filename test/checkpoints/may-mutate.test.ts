import { describe, expect, it } from 'vitest'
import { mayMutate } from '../../src/checkpoints/extension.js'
import type { ToolCallInfo } from '../../src/agent/extensions.js'
import type { ToolFacts } from '../../src/tools/tool.js'

function call(name: string, tool?: ToolFacts): ToolCallInfo {
  return { turn: 1, step: 1, callId: 'c1', name, arguments: '{}', input: {}, tool }
}

describe('which calls take a checkpoint first', () => {
  it('a read-only read tool takes none', () => {
    expect(mayMutate(call('read', { readOnly: true, category: 'read' }))).toBe(false)
  })

  it('edit and exec tools take one even if they claim to be read-only', () => {
    expect(mayMutate(call('edit', { readOnly: true, category: 'edit' }))).toBe(true)
    expect(mayMutate(call('bash', { readOnly: true, category: 'exec' }))).toBe(true)
  })

  it('an MCP tool its server did not mark read-only takes one', () => {
    expect(mayMutate(call('mcp__db__drop', { readOnly: false, category: 'other' }))).toBe(true)
    expect(mayMutate(call('mcp__db__query', { readOnly: true, category: 'other' }))).toBe(false)
  })

  it('a call to a tool that does not exist takes none: it cannot run', () => {
    expect(mayMutate(call('no_such_tool'))).toBe(false)
  })
})
