import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import { App } from '../../src/cli/tui/App.js'
import { FakeAgent, fakeServices, settle, waitForFrame } from './support/fake-agent.js'

afterEach(() => cleanup())

const PASTE_START = '\x1b[200~'
const PASTE_END = '\x1b[201~'

describe('the editor on a small screen', () => {
  it('keeps a 300-line paste within the screen, scrolled to the cursor, and sends all of it', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const text = Array.from({ length: 300 }, (_, i) => `pasted line ${i + 1}`).join('\n')
    ui.stdin.write(`${PASTE_START}${text}${PASTE_END}`)
    const frame = await waitForFrame(ui, 'pasted line 300')
    expect(frame).toMatch(/… 2\d\d lines above/)
    expect(frame).not.toMatch(/pasted line 1\s/)
    expect(frame.split('\n').length).toBeLessThanOrEqual(24)
    ui.stdin.write('\r')
    await settle()
    expect(agent.calls).toEqual([expect.objectContaining({ verb: 'followUp', text })])
  })

  it('draws a pasted tab as spaces so the box keeps its edge, and sends the tab', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    ui.stdin.write(`${PASTE_START}a\tb${PASTE_END}`)
    const frame = await waitForFrame(ui, 'a    b')
    const row = frame.split('\n').find((l) => l.includes('a    b')) ?? ''
    const border = frame.split('\n').find((l) => l.startsWith('╰')) ?? ''
    expect([...row].length).toBe([...border].length)
    ui.stdin.write('\r')
    await settle()
    expect(agent.calls[0]?.text).toBe('a\tb')
  })

  it('cycles the permission mode with Shift+Tab, never into bypass', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const modes: string[] = []
    for (let i = 0; i < 4; i++) {
      ui.stdin.write('\x1b[Z')
      await settle()
      modes.push(agent.permissionMode)
    }
    expect(modes).toEqual(['accept-edits', 'plan', 'default', 'accept-edits'])
    expect(await waitForFrame(ui, 'accept-edits')).toContain('accept-edits')
  })
})

describe('Esc', () => {
  it('twice while idle opens /rewind; once does nothing; while a turn runs it cancels', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    ui.stdin.write('\x1b')
    await settle(700)
    ui.stdin.write('\x1b')
    await settle(50)
    expect(ui.lastFrame()).not.toContain('There is no turn to rewind to yet.')
    ui.stdin.write('\x1b')
    await waitForFrame(ui, 'There is no turn to rewind to yet.')
    agent.busy = true
    ui.stdin.write('\x1b')
    await settle(50)
    expect(agent.calls.filter((c) => c.verb === 'cancel')).toHaveLength(1)
  })
})

describe('/compact', () => {
  it('leaves the busy state when the compaction ends, with no later event needed', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const compact = agent.compact.bind(agent)
    agent.compact = async (focus, options) => {
      agent.busy = true
      const outcome = await compact(focus, options)
      await settle(20)
      agent.busy = false
      return outcome
    }
    ui.stdin.write('/compact')
    await settle()
    ui.stdin.write('\r')
    await waitForFrame(ui, 'Compacted 4 messages')
    await settle(100)
    const frame = ui.lastFrame() ?? ''
    expect(frame).toContain('ask Rein, or /help')
    expect(frame).not.toContain('steer the agent')
  })
})
