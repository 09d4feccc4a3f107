import { render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup } from 'ink-testing-library'
import { App } from '../../src/cli/tui/App.js'
import { stripAnsi } from '../../src/cli/tui/ansi.js'
import { FakeAgent, fakeServices, settle } from './support/fake-agent.js'

afterEach(() => cleanup())

function seedTurn(agent: FakeAgent): void {
  agent.commit('turn/start', { turn: 1 })
  agent.commit('step/start', { turn: 1, step: 1 })
  agent.commit('user/message', { id: 'u1', content: [{ type: 'text', text: 'fix the greeting' }], source: { kind: 'user' } }, { surface: true })
  agent.commit(
    'context/message',
    {
      id: 'c1',
      content: [{ type: 'text', text: '<system-reminder>\nAGENTS.md says: be brief\nmore\n</system-reminder>' }],
      source: { kind: 'workspace-context' },
    },
    { surface: true },
  )
  agent.commit(
    'assistant/message',
    {
      turn: 1,
      step: 1,
      message: {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'The greeting is in a.txt.\nI should edit it.' },
          { type: 'text', text: 'I will **edit** `a.txt`.' },
          { type: 'tool-call', id: 'call1', name: 'edit', arguments: '{"path":"a.txt","old_string":"hello","new_string":"hi"}' },
        ],
      },
      usage: { inputUncached: 1000, inputCacheRead: 3000, output: 200, reasoning: 50 },
    },
    { surface: true },
  )
  agent.commit('tool/call', { turn: 1, step: 1, callId: 'call1', name: 'edit', arguments: '{"file_path":"a.txt","old_string":"hello","new_string":"hi"}' }, { at: 1_800_000_000_000 })
  agent.commit(
    'tool/result',
    {
      turn: 1,
      step: 1,
      callId: 'call1',
      content: [{ type: 'text', text: 'Edited a.txt.' }],
      isError: false,
      meta: { path: 'a.txt', diff: '--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-hello\n+hi\n' },
    },
    { at: 1_800_000_001_500, surface: true },
  )
  agent.commit('step/end', { turn: 1, step: 1 })
}

describe('the conversation', () => {
  it('shows a resumed session: prompt, one-line context, collapsed reasoning, markdown answer, and an edit card with its diff', async () => {
    const agent = new FakeAgent()
    seedTurn(agent)
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toContain('› fix the greeting')
    expect(screen).toContain('⟐ context · workspace-context: <system-reminder> (+3 lines, Ctrl+O)')
    expect(screen).toContain('✻ thought: The greeting is in a.txt. (2 lines, Ctrl+O)')
    expect(screen).toContain('I will edit a.txt.')
    expect(screen).toMatch(/⏺ edit a\.txt ✓ 1\.5 s/)
    expect(screen).toContain('-hello')
    expect(screen).toContain('+hi')
    expect(screen).not.toContain('AGENTS.md says')
  })

  it('streams text as it arrives and prints the committed answer once', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    agent.commit('turn/start', { turn: 1 })
    agent.emit({ type: 'reasoning-delta', turn: 1, step: 1, text: 'pondering the request' })
    agent.emit({ type: 'text-delta', turn: 1, step: 1, text: 'Hello, ' })
    agent.emit({ type: 'text-delta', turn: 1, step: 1, text: 'wor' })
    await settle()
    let screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toContain('✻ pondering the request')
    expect(screen).toContain('Hello, wor')
    agent.emit({ type: 'text-delta', turn: 1, step: 1, text: 'ld.' })
    agent.commit('assistant/message', {
      turn: 1,
      step: 1,
      message: { role: 'assistant', content: [{ type: 'reasoning', text: 'pondering the request' }, { type: 'text', text: 'Hello, world.' }] },
    })
    agent.commit('turn/end', { turn: 1, reason: 'completed' })
    await settle()
    screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen.split('Hello, world.').length - 1).toBe(1)
    expect(screen).toContain('✻ thought: pondering the request')
  })

  it('shows a running tool with its output tail, then the finished card', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    agent.commit('tool/call', { turn: 1, step: 1, callId: 'b1', name: 'bash', arguments: '{"command":"npm test"}' })
    agent.emit({ type: 'tool-progress', callId: 'b1', text: 'running 3 tests\n' })
    agent.emit({ type: 'tool-progress', callId: 'b1', text: 'ok 1\nok 2' })
    await settle()
    let screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toContain('⏺ bash npm test …')
    expect(screen).toContain('│ ok 2')
    agent.commit('tool/result', { turn: 1, step: 1, callId: 'b1', content: [{ type: 'text', text: 'ok 1\nok 2\nok 3\n' }], isError: false })
    await settle()
    screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toMatch(/⏺ bash npm test ✓/)
    expect(screen).toContain('│ ok 3')
  })

  it('marks steering where it landed, and hook continuations as hook messages', async () => {
    const agent = new FakeAgent()
    agent.commit('steering/message', { id: 's1', turn: 1, content: [{ type: 'text', text: 'use tabs' }], source: { kind: 'user' } })
    agent.commit('steering/message', { id: 's2', turn: 1, content: [{ type: 'text', text: 'tests still fail' }], source: { kind: 'hook' } })
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toContain('↳ steered: use tabs')
    expect(screen).toContain('⟐ hook: tests still fail')
  })

  it('says in one sentence why a turn failed or was cancelled', async () => {
    const agent = new FakeAgent()
    agent.commit('turn/end', { turn: 1, reason: 'error', error: { code: 'auth', message: 'DeepSeek rejected the API key (401); check DEEPSEEK_API_KEY.' } })
    agent.commit('turn/end', { turn: 2, reason: 'aborted' })
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toContain('✗ DeepSeek rejected the API key (401); check DEEPSEEK_API_KEY.')
    expect(screen).toContain('■ Cancelled.')
  })

  it('survives a tool call whose arguments are not JSON and a result for a call it never saw', async () => {
    const agent = new FakeAgent()
    agent.commit('tool/call', { turn: 1, step: 1, callId: 'x', name: 'read', arguments: '{"path": "a.t' })
    agent.commit('tool/result', { turn: 1, step: 1, callId: 'x', content: [{ type: 'text', text: 'Error: bad JSON' }], isError: true })
    agent.commit('tool/result', { turn: 1, step: 1, callId: 'ghost', content: [], isError: false })
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toContain('⏺ read {"path": "a.t ✗')
    expect(screen).toContain('└ Error: bad JSON')
  })

  it('expands the last collapsed reasoning on Ctrl+O', async () => {
    const agent = new FakeAgent()
    seedTurn(agent)
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    ui.stdin.write('\x0f')
    await settle()
    expect(stripAnsi(ui.lastFrame() ?? '')).toContain('I should edit it.')
  })
})
