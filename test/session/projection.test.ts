import { describe, expect, it } from 'vitest'
import type { InputBlock } from '../../src/llm/messages.js'
import { Session } from '../../src/session/session.js'
import { MemoryStore } from '../../src/store/memory-store.js'

const reminder: InputBlock[] = [
  { type: 'text', text: '<system-reminder>\nToday is 2025-01-01. Permission mode: plan.\n</system-reminder>' },
  { type: 'text', text: '  trailing spaces and "quotes" \u2028 and emoji 🚀  ' },
  { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
]

async function projected(type: 'user/message' | 'context/message' | 'steering/message') {
  const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
  const source = { kind: 'workspace-context', file: 'AGENTS.md', secret: 'source-marker' }
  if (type === 'user/message') session.append(type, { id: 'm', content: reminder, source })
  else if (type === 'context/message') session.append(type, { id: 'm', content: reminder, source, meta: { note: 'meta-marker' } })
  else session.append(type, { id: 'm', turn: 7, content: reminder, source })
  return session.messages()
}

describe('the projection', () => {
  it.each(['user/message', 'context/message', 'steering/message'] as const)(
    '%s becomes a user message with exactly its content, byte for byte',
    async (type) => {
      const messages = await projected(type)
      expect(messages).toHaveLength(1)
      expect(JSON.stringify(messages[0])).toBe(JSON.stringify({ role: 'user', content: reminder }))
    },
  )

  it.each(['user/message', 'context/message', 'steering/message'] as const)(
    '%s keeps a block that contains <system-reminder> text untouched and adds no tags',
    async (type) => {
      const [message] = await projected(type)
      const text = (message.content as InputBlock[])[0]
      expect(text).toEqual(reminder[0])
      expect(JSON.stringify(message).match(/system-reminder/g)).toHaveLength(2)
    },
  )

  it.each(['user/message', 'context/message', 'steering/message'] as const)(
    '%s never shows its source, meta or turn in the derived messages',
    async (type) => {
      const serialized = JSON.stringify(await projected(type))
      expect(serialized).not.toContain('source-marker')
      expect(serialized).not.toContain('workspace-context')
      expect(serialized).not.toContain('meta-marker')
      expect(serialized).not.toMatch(/"turn"|"source"|"meta"/)
    },
  )

  it('projects an assistant message as it is, reasoning and tool calls included', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    const message = {
      role: 'assistant' as const,
      content: [
        { type: 'reasoning' as const, text: 'think' },
        { type: 'text' as const, text: '' },
        { type: 'tool-call' as const, id: 'c1', name: 'read', arguments: '{"path" : "a"}' },
      ],
    }
    session.append('assistant/message', { turn: 1, step: 1, message, usage: { inputUncached: 1, inputCacheRead: 2, output: 3, reasoning: 1 } })
    expect(session.messages()).toEqual([message])
  })

  it('projects a tool result to a tool message paired by callId, without meta', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    session.append('tool/result', {
      turn: 1,
      step: 1,
      callId: 'c1',
      content: [{ type: 'text', text: 'out' }],
      isError: true,
      meta: { diff: 'meta-marker' },
    })
    expect(session.messages()).toEqual([{ role: 'tool', callId: 'c1', content: [{ type: 'text', text: 'out' }], isError: true }])
  })
})
