import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import { App } from '../../src/cli/tui/App.js'
import { FakeAgent, fakeServices, settle, waitForFrame } from './support/fake-agent.js'

afterEach(() => cleanup())

describe('the task list', () => {
  it('is drawn above the editor from the latest todo_write, follows its changes, and goes once all is done', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    agent.commit('todo/write', {
      todos: [
        { content: 'read the parser', status: 'in_progress' },
        { content: 'fix the off-by-one', status: 'pending' },
      ],
    })
    const first = await waitForFrame(ui, 'Tasks · 0/2 done')
    expect(first).toMatch(/◐ read the parser[\s\S]*☐ fix the off-by-one[\s\S]*ask Rein/)
    agent.commit('todo/write', {
      todos: [
        { content: 'read the parser', status: 'completed' },
        { content: 'fix the off-by-one', status: 'in_progress' },
      ],
    })
    const second = await waitForFrame(ui, 'Tasks · 1/2 done')
    expect(second).toContain('☑ read the parser')
    expect(second).toContain('◐ fix the off-by-one')
    agent.commit('todo/write', {
      todos: [
        { content: 'read the parser', status: 'completed' },
        { content: 'fix the off-by-one', status: 'completed' },
      ],
    })
    await settle(100)
    expect(ui.lastFrame()).not.toContain('Tasks ·')
  })

  it('is read back from the log of a resumed session, and a long list says what it leaves out', async () => {
    const agent = new FakeAgent()
    agent.commit('todo/write', {
      todos: Array.from({ length: 12 }, (_, i) => ({ content: `step ${i + 1}`, status: i < 5 ? ('completed' as const) : ('pending' as const) })),
    })
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    const frame = await waitForFrame(ui, 'Tasks · 5/12 done')
    expect(frame).toContain('… 4 done above')
    expect(frame).toContain('☐ step 6')
    expect(frame).not.toMatch(/☑ step 4\b/)
    expect(frame).toContain('☑ step 5')
    expect(frame).toContain('step 12')
  })
})
