import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import { App } from '../../src/cli/tui/App.js'
import { Picker } from '../../src/cli/tui/Picker.js'
import { stripAnsi } from '../../src/cli/tui/ansi.js'
import { FakeAgent, fakeServices, settle } from './support/fake-agent.js'

afterEach(() => cleanup())

async function type(ui: ReturnType<typeof render>, text: string): Promise<void> {
  ui.stdin.write(text)
  await settle(10)
}

describe('sending, steering and queueing', () => {
  it('sends a prompt with Enter while the agent is idle', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    await type(ui, 'hello there')
    await type(ui, '\r')
    expect(agent.calls).toEqual([{ verb: 'followUp', text: 'hello there', id: 'm0' }])
  })

  it('steers with Enter while the agent works and shows the message queued until it lands', async () => {
    const agent = new FakeAgent()
    agent.busy = true
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    await type(ui, 'use tabs')
    await type(ui, '\r')
    expect(agent.calls[0]).toMatchObject({ verb: 'steer', text: 'use tabs' })
    await settle()
    let screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toContain('⇢ steer (next step): use tabs')
    expect(screen).toContain('1 queued')
    agent.commit('inbox/dequeued', { id: 'm0', reason: 'delivered' })
    agent.commit('steering/message', { id: 'm0', turn: 1, content: [{ type: 'text', text: 'use tabs' }], source: { kind: 'user' } })
    await settle()
    screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).not.toContain('⇢ steer')
    expect(screen).toContain('↳ steered: use tabs')
  })

  it('queues a follow-up with Tab and with Alt+Enter', async () => {
    const agent = new FakeAgent()
    agent.busy = true
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    await type(ui, 'then run the tests')
    await type(ui, '\t')
    await type(ui, 'and lint')
    await type(ui, '\x1b\r')
    expect(agent.calls.map((c) => [c.verb, c.text])).toEqual([
      ['followUp', 'then run the tests'],
      ['followUp', 'and lint'],
    ])
    await settle()
    expect(stripAnsi(ui.lastFrame() ?? '')).toContain('⏎ follow-up (after turn): and lint')
  })

  it('takes the last queued message back into the editor with Up on an empty editor', async () => {
    const agent = new FakeAgent()
    agent.busy = true
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    await type(ui, 'first')
    await type(ui, '\t')
    await type(ui, 'second draft')
    await type(ui, '\t')
    await settle()
    await type(ui, '\x1b[A')
    await settle()
    const screen = stripAnsi(ui.lastFrame() ?? '')
    expect(agent.calls.at(-1)).toEqual({ verb: 'withdraw', id: 'm1' })
    expect(screen).toContain('› second draft')
    expect(screen).toContain('⏎ follow-up (after turn): first')
    expect(screen).not.toContain('follow-up (after turn): second')
  })

  it('keeps a multi-line paste intact and adds newlines with Ctrl+J', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    await type(ui, 'line one\rline two\rline three')
    await type(ui, '\n')
    await type(ui, 'four')
    await type(ui, '\r')
    expect(agent.calls[0]?.text).toBe('line one\nline two\nline three\nfour')
  })

  it('keeps a bracketed paste whole, line breaks and tabs included, and sends only on Enter typed after it', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    await type(ui, '\x1b[200~first\r\tsecond\r\x1b[201~')
    expect(agent.calls).toEqual([])
    await type(ui, 'third\r')
    expect(agent.calls[0]?.text).toBe('first\n\tsecond\nthird')
  })

  it('picks in a picker when filter text and Enter arrive in one read', async () => {
    const picked: string[] = []
    const choices = [
      { label: 'fix the parser', value: 'a' },
      { label: 'remember the word tangerine', value: 'b' },
    ]
    const ui = render(<Picker title="Resume a session" choices={choices} onPick={(v) => picked.push(v)} onClose={() => {}} />)
    await settle()
    expect(stripAnsi(ui.lastFrame() ?? '')).toContain('Resume a session · type to filter')
    await type(ui, 'tangerine\r')
    expect(picked).toEqual(['b'])
  })

  it('cancels the running turn with Esc', async () => {
    const agent = new FakeAgent()
    agent.busy = true
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    await type(ui, '\x1b')
    await settle(80)
    expect(agent.calls).toEqual([{ verb: 'cancel' }])
  })

  it('clears the editor on Ctrl+C with text, and exits on a second Ctrl+C', async () => {
    const agent = new FakeAgent()
    const exits: string[] = []
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={(a) => exits.push(a.kind)} />)
    await settle()
    await type(ui, 'draft')
    await type(ui, '\x03')
    await settle()
    expect(stripAnsi(ui.lastFrame() ?? '')).not.toContain('draft')
    await type(ui, '\x03')
    await settle()
    expect(stripAnsi(ui.lastFrame() ?? '')).toContain('Press Ctrl+C again to exit')
    await type(ui, '\x03')
    expect(exits).toEqual(['quit'])
  })

  it('completes an @path mention with Tab instead of queueing', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    await type(ui, 'look at @src/u')
    await settle()
    expect(stripAnsi(ui.lastFrame() ?? '')).toContain('@src/util.ts · attaches the file (Tab)')
    await type(ui, '\t')
    await type(ui, 'please')
    await type(ui, '\r')
    expect(agent.calls[0]?.text).toBe('look at @src/util.ts please')
  })

  it('answers an unknown slash command with a suggestion and sends nothing to the model', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    await type(ui, '/resum')
    await type(ui, '\r')
    await type(ui, '/frobnicate')
    await type(ui, '\r')
    await settle()
    const screen = stripAnsi(ui.lastFrame() ?? '')
    expect(agent.calls).toEqual([])
    expect(screen).toContain('There is no /resum; did you mean /resume?')
    expect(screen).toContain('There is no /frobnicate; /help lists the commands.')
  })

  it('compacts with the focus and keep=N typed after /compact and shows the outcome once', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    await type(ui, '/compact keep=2 focus on tests')
    await type(ui, '\r')
    await settle()
    expect(agent.calls).toContainEqual({ verb: 'compact', text: 'focus on tests', keep: 2 })
    expect(stripAnsi(ui.lastFrame() ?? '').split('Compacted 4 messages')).toHaveLength(2)
  })

  it('refuses a keep=N that is not a whole number with one sentence', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    await type(ui, '/compact keep=two')
    await type(ui, '\r')
    await settle()
    expect(agent.calls.filter((c) => c.verb === 'compact')).toEqual([])
    expect(stripAnsi(ui.lastFrame() ?? '')).toContain('keep=two is not a whole number of exchanges; use e.g. /compact keep=3.')
  })
})
