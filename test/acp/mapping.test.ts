import { describe, expect, it } from 'vitest'
import { RequestError } from '@agentclientprotocol/sdk'
import { promptToInput } from '../../src/acp/content.js'
import { describeToolCall as describeWith, diffFromMeta, resultContent as contentWith, sidesOfUnifiedDiff } from '../../src/acp/tool-content.js'
import { toolLookup } from '../../src/frontend/render/index.js'
import { isPermissionMode, modeState, stopReasonFor } from '../../src/acp/modes.js'
import { UpdateTranslator } from '../../src/acp/updates.js'
import { answerFor } from '../../src/acp/permission.js'
import { parseCommand } from '../../src/acp/slash-commands.js'
import type { SessionEvent } from '../../src/session/events.js'

const cwd = '/work/project'
const tools = toolLookup()
const describeToolCall = (name: string, args: string, dir: string) => describeWith(tools(name), name, args, dir)
const resultContent = (name: string, ...rest: Parameters<typeof contentWith> extends [unknown, ...infer R] ? R : never) => contentWith(tools(name), ...rest)

function event(seq: number, type: string, data: unknown): SessionEvent {
  return { seq, time: 0, type, data } as SessionEvent
}

describe('prompt content', () => {
  it('passes text through unchanged and names a resource link as a markdown link', () => {
    const input = promptToInput(
      [
        { type: 'text', text: 'look at  this\n' },
        { type: 'resource_link', name: 'a.ts', uri: 'file:///work/project/a.ts' },
      ],
      { images: false },
    )
    expect(input).toEqual([
      { type: 'text', text: 'look at  this\n' },
      { type: 'text', text: '[a.ts](file:///work/project/a.ts)' },
    ])
  })

  it('renders an embedded text resource as its name followed by its text verbatim', () => {
    const input = promptToInput(
      [{ type: 'resource', resource: { uri: 'file:///x/b.md', text: '# B\n\n  body ' } }],
      { images: false },
    )
    expect(input).toEqual([
      { type: 'text', text: '[file:///x/b.md](file:///x/b.md)' },
      { type: 'text', text: '# B\n\n  body ' },
    ])
  })

  it('keeps images only when the model accepts them and refuses them otherwise', () => {
    const image = { type: 'image' as const, mimeType: 'image/png', data: 'AAAA' }
    expect(promptToInput([image], { images: true })).toEqual([{ type: 'image', mimeType: 'image/png', data: 'AAAA' }])
    expect(() => promptToInput([image], { images: false })).toThrow(RequestError)
    expect(() => promptToInput([image], { images: false })).toThrow(/does not accept images/)
  })

  it('refuses audio with an invalid-params error', () => {
    try {
      promptToInput([{ type: 'audio', mimeType: 'audio/wav', data: 'AA' }], { images: true })
      expect.unreachable()
    } catch (error) {
      expect((error as RequestError).code).toBe(-32602)
    }
  })
})

describe('tool call display', () => {
  it('titles a file tool with the relative path and locates it absolutely with its line', () => {
    const display = describeToolCall('read', JSON.stringify({ file_path: 'src/a.ts', offset: 10 }), cwd)
    expect(display).toMatchObject({
      title: 'Read src/a.ts',
      kind: 'read',
      locations: [{ path: '/work/project/src/a.ts', line: 10 }],
    })
  })

  it('shows a command as code and groups it as execute', () => {
    const display = describeToolCall('bash', JSON.stringify({ command: 'npm test' }), cwd)
    expect(display.title).toBe('`npm test`')
    expect(display.kind).toBe('execute')
    expect(display.locations).toEqual([])
  })

  it('groups edits, searches, plans and MCP tools', () => {
    expect(describeToolCall('edit', '{"file_path":"/work/project/x"}', cwd)).toMatchObject({ kind: 'edit', title: 'Edit x' })
    expect(describeToolCall('grep', '{"pattern":"foo"}', cwd)).toMatchObject({ kind: 'search', title: 'Search for "foo"' })
    expect(describeToolCall('todo_write', '{}', cwd).kind).toBe('think')
    expect(describeToolCall('mcp__github__create_issue', '{}', cwd)).toMatchObject({ kind: 'other', title: 'github: create_issue' })
  })

  it('shows arguments that are not JSON as their raw text', () => {
    const display = describeToolCall('read', '{"file_path": ', cwd)
    expect(display.rawInput).toBe('{"file_path": ')
    expect(display.title).toBe('Read')
  })

  it('turns the unified diff an edit leaves in meta into the old and new text of its hunks', () => {
    const diff = [
      'Index: a.txt',
      '===================================================================',
      '--- a.txt',
      '+++ a.txt',
      '@@ -1,3 +1,3 @@',
      ' one',
      '-two',
      '+TWO',
      ' three',
      '',
    ].join('\n')
    expect(sidesOfUnifiedDiff(diff)).toEqual({ oldText: 'one\ntwo\nthree\n', newText: 'one\nTWO\nthree\n' })
    expect(diffFromMeta({ path: '/work/project/a.txt', diff }, cwd)).toEqual({
      type: 'diff',
      path: '/work/project/a.txt',
      oldText: 'one\ntwo\nthree\n',
      newText: 'one\nTWO\nthree\n',
    })
  })

  it('keeps a missing final newline and reports a created file as having no old text', () => {
    const diff = '--- n.txt\n+++ n.txt\n@@ -0,0 +1,1 @@\n+hello\n\\ No newline at end of file\n'
    expect(sidesOfUnifiedDiff(diff)).toEqual({ oldText: '', newText: 'hello' })
    expect(diffFromMeta({ path: 'n.txt', created: true, diff }, cwd)).toEqual({
      type: 'diff',
      path: '/work/project/n.txt',
      oldText: null,
      newText: 'hello',
    })
  })

  it('prefers whole old and new text when meta has them', () => {
    expect(diffFromMeta({ path: 'a.txt', oldText: 'a', newText: 'b' }, cwd)).toEqual({
      type: 'diff',
      path: '/work/project/a.txt',
      oldText: 'a',
      newText: 'b',
    })
    expect(diffFromMeta({ path: 'a.txt', diffOmitted: true }, cwd)).toBeUndefined()
  })

  it('shows a failed result as its message and command output fenced', () => {
    expect(resultContent('edit', [{ type: 'text', text: 'Error: no match' }], true, { path: 'a', oldText: '', newText: 'x' }, cwd)).toEqual([
      { type: 'content', content: { type: 'text', text: 'Error: no match' } },
    ])
    expect(resultContent('bash', [{ type: 'text', text: 'ok ```\n' }], false, undefined, cwd)).toEqual([
      { type: 'content', content: { type: 'text', text: '````\nok ```\n````' } },
    ])
  })
})

describe('modes, stop reasons, permissions and commands', () => {
  it('offers the four permission modes with the current one selected', () => {
    const state = modeState('plan')
    expect(state.currentModeId).toBe('plan')
    expect(state.availableModes.map((m) => m.id)).toEqual(['default', 'accept-edits', 'plan', 'bypass'])
    expect(isPermissionMode('accept-edits')).toBe(true)
    expect(isPermissionMode('yolo')).toBe(false)
  })

  it('maps every turn end reason except error to an ACP stop reason', () => {
    expect(stopReasonFor('completed')).toBe('end_turn')
    expect(stopReasonFor('max-tokens')).toBe('max_tokens')
    expect(stopReasonFor('max-steps')).toBe('max_turn_requests')
    expect(stopReasonFor('blocked')).toBe('refusal')
    expect(stopReasonFor('aborted')).toBe('cancelled')
    expect(stopReasonFor('interrupted')).toBe('cancelled')
  })

  it('denies a cancelled permission request and records the suggested rule for allow always', () => {
    const request = {
      call: { turn: 1, step: 1, callId: 'c', name: 'bash', arguments: '{}', input: {} },
      reason: 'x',
      suggestedRule: 'Bash(npm test)',
    }
    expect(answerFor({ outcome: { outcome: 'cancelled' } }, request).outcome).toBe('deny')
    expect(answerFor({ outcome: { outcome: 'selected', optionId: 'allow-always' } }, request)).toEqual({
      outcome: 'allow-always',
      rule: 'Bash(npm test)',
    })
    expect(answerFor({ outcome: { outcome: 'selected', optionId: 'allow-once' } }, request)).toEqual({ outcome: 'allow-once' })
    expect(answerFor({ outcome: { outcome: 'selected', optionId: 'reject-once' } }, request).outcome).toBe('deny')
    expect(answerFor({ outcome: { outcome: 'selected', optionId: 'made-up' } }, request).outcome).toBe('deny')
  })

  it('recognises only offered commands written alone in one text block', () => {
    expect(parseCommand([{ type: 'text', text: '/permissions plan' }])).toEqual({ name: 'permissions', arg: 'plan' })
    expect(parseCommand([{ type: 'text', text: '/compact keep=2' }])).toEqual({ name: 'compact', arg: 'keep=2' })
    expect(parseCommand([{ type: 'text', text: '/cost' }])).toBeUndefined()
    expect(parseCommand([{ type: 'text', text: 'please /model x' }])).toBeUndefined()
  })
})

describe('update translation', () => {
  it('streams deltas live and announces each tool call once, then updates it to its final status', () => {
    const t = new UpdateTranslator(cwd)
    const updates = [
      ...t.live({ type: 'reasoning-delta', turn: 1, step: 1, text: 'hm' }),
      ...t.live({ type: 'text-delta', turn: 1, step: 1, text: 'Hi' }),
      ...t.live({
        type: 'event',
        event: event(3, 'assistant/message', {
          turn: 1,
          step: 1,
          message: {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'hm' },
              { type: 'text', text: 'Hi' },
              { type: 'tool-call', id: 'c1', name: 'bash', arguments: '{"command":"ls"}' },
            ],
          },
        }),
      }),
      ...t.live({ type: 'event', event: event(4, 'tool/call', { turn: 1, step: 1, callId: 'c1', name: 'bash', arguments: '{"command":"ls"}' }) }),
      ...t.live({ type: 'tool-progress', callId: 'c1', text: 'a\n' }),
      ...t.live({
        type: 'event',
        event: event(5, 'tool/result', { turn: 1, step: 1, callId: 'c1', content: [{ type: 'text', text: 'a\n' }], isError: false }),
      }),
    ]
    expect(updates.map((u) => u.sessionUpdate)).toEqual([
      'agent_thought_chunk',
      'agent_message_chunk',
      'tool_call',
      'tool_call_update',
      'tool_call_update',
      'tool_call_update',
    ])
    expect(updates[2]).toMatchObject({ toolCallId: 'c1', status: 'pending', kind: 'execute', title: '`ls`' })
    expect(updates[3]).toEqual({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress' })
    expect(updates[5]).toMatchObject({ status: 'completed', content: [{ type: 'content', content: { type: 'text', text: '```\na\n```' } }] })
  })

  it('shows rewritten arguments when a call starts with different arguments than announced', () => {
    const t = new UpdateTranslator(cwd)
    t.live({
      type: 'event',
      event: event(0, 'assistant/message', {
        turn: 1,
        step: 1,
        message: { role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'read', arguments: '{"file_path":"a"}' }] },
      }),
    })
    const [update] = t.live({
      type: 'event',
      event: event(1, 'tool/call', {
        turn: 1,
        step: 1,
        callId: 'c',
        name: 'read',
        arguments: '{"file_path":"a"}',
        rewritten: { arguments: '{"file_path":"b"}', by: 'hook' },
      }),
    })
    expect(update).toMatchObject({ sessionUpdate: 'tool_call_update', title: 'Read b', locations: [{ path: '/work/project/b' }] })
  })

  it('reports usage after each live response with the window of the model that answered and the cost so far, priced at the hour it answered', () => {
    const t = new UpdateTranslator(cwd)
    const usage = { inputUncached: 1000, inputCacheRead: 9000, output: 500, reasoning: 100 }
    const answer = (seq: number, time: number) => ({
      ...event(seq, 'assistant/message', { turn: 1, step: seq, message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }, usage }),
      time,
    })
    t.replay(event(0, 'request/header', { reason: 'initial', config: { model: 'deepseek-v4-pro', effort: 'high' }, system: '', tools: [] }))
    // A Saturday noon (off-peak), then a Monday 02:00 UTC (peak).
    expect(t.replay(answer(1, Date.UTC(2026, 10, 28, 12))).filter((u) => u.sessionUpdate === 'usage_update')).toEqual([])
    const live = t.live({ type: 'event', event: answer(2, Date.UTC(2026, 10, 30, 2)) }).find((u) => u.sessionUpdate === 'usage_update')
    // deepseek-v4-pro: off-peak (1000 × 0.66 + 9000 × 0.022 + 500 × 1.98) / 1M = $0.001848, peak twice that: $0.003696.
    expect(live).toEqual({ sessionUpdate: 'usage_update', used: 10_500, size: 1_048_565, cost: { amount: 0.005544, currency: 'USD' } })
  })

  it("counts a compaction summary's request in the next usage_update's cost, at the model that answered it", () => {
    const t = new UpdateTranslator(cwd)
    const usage = { inputUncached: 1000, inputCacheRead: 9000, output: 500, reasoning: 100 }
    const noon = Date.UTC(2026, 10, 28, 12)
    t.replay(event(0, 'request/header', { reason: 'initial', config: { model: 'deepseek-v4-pro', effort: 'high' }, system: '', tools: [] }))
    t.replay({ ...event(1, 'compaction/end', { id: 'c', outcome: 'replaced', usage, model: 'deepseek-v4-pro' }), time: noon })
    const answer = { ...event(2, 'assistant/message', { turn: 2, step: 1, message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }, usage }), time: noon }
    const live = t.live({ type: 'event', event: answer }).find((u) => u.sessionUpdate === 'usage_update')
    // Two requests at deepseek-v4-pro's off-peak $0.001848 each: the summary's and the step's.
    expect(live).toMatchObject({ cost: { amount: 0.003696, currency: 'USD' } })
  })

  it('replays prompts, text, reasoning, tool calls with their final status and the plan', () => {
    const t = new UpdateTranslator(cwd)
    const log = [
      event(0, 'turn/start', { turn: 1 }),
      event(1, 'user/message', { id: 'u', content: [{ type: 'text', text: 'go' }], source: { kind: 'acp' } }),
      event(2, 'context/message', { id: 'x', content: [{ type: 'text', text: '<system-reminder>' }], source: { kind: 'runtime' } }),
      event(3, 'assistant/message', {
        turn: 1,
        step: 1,
        message: {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'think' },
            { type: 'tool-call', id: 'c', name: 'write', arguments: '{"file_path":"n.txt","content":"x"}' },
          ],
        },
      }),
      event(4, 'tool/call', { turn: 1, step: 1, callId: 'c', name: 'write', arguments: '{"file_path":"n.txt","content":"x"}' }),
      event(5, 'todo/write', { todos: [{ content: 'write n', status: 'completed' }] }),
      event(6, 'tool/result', {
        turn: 1,
        step: 1,
        callId: 'c',
        content: [{ type: 'text', text: 'Wrote n.txt' }],
        isError: false,
        meta: { path: '/work/project/n.txt', newText: 'x', oldText: null },
      }),
      event(7, 'assistant/message', { turn: 1, step: 2, message: { role: 'assistant', content: [{ type: 'text', text: 'done' }] } }),
      event(8, 'turn/end', { turn: 1, reason: 'completed' }),
    ]
    const updates = log.flatMap((e) => t.replay(e))
    expect(updates).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'go' } },
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'think' } },
      expect.objectContaining({ sessionUpdate: 'tool_call', toolCallId: 'c', kind: 'edit', title: 'Write n.txt' }),
      { sessionUpdate: 'plan', entries: [{ content: 'write n', status: 'completed', priority: 'medium' }] },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c',
        status: 'completed',
        content: [{ type: 'diff', path: '/work/project/n.txt', oldText: null, newText: 'x' }],
      },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'done' } },
    ])
  })
})
