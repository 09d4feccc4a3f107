import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import { App } from '../../src/cli/tui/App.js'
import { stripAnsi } from '../../src/cli/tui/ansi.js'
import { costReport } from '../../src/cli/tui/session-reports.js'
import { UsageLedger } from '../../src/cli/tui/usage-ledger.js'
import { FakeAgent, fakeServices, settle, waitForFrame } from '../tui/support/fake-agent.js'

afterEach(() => cleanup())

const usage = (inputUncached: number, inputCacheRead: number, output: number) => ({ inputUncached, inputCacheRead, output, reasoning: 0 })

function parentWithChild(agent: FakeAgent): void {
  agent.commit('assistant/message', { turn: 1, step: 1, message: { role: 'assistant', content: [{ type: 'text', text: 'done' }] }, usage: usage(10_000, 0, 1_000) })
  agent.commit('subagent/end', { callId: 'c1', child: 'child-1', outcome: 'completed', usage: usage(4_000, 16_000, 2_000), cost: 0.022 })
}

describe("the terminal UI's cost figures", () => {
  it("the footer shows the children's cost apart from the session's own", async () => {
    const agent = new FakeAgent()
    parentWithChild(agent)
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const footer = stripAnsi(ui.lastFrame() ?? '').split('\n').slice(-2).join(' ')
    // $1 per million tokens of any kind for the session's own 11,000 tokens; the child's cost as logged.
    expect(footer).toContain('$0.0110 + $0.0220 subagents')
  })

  it('/cost lists the subagents on their own line and adds them to the total', () => {
    const ledger = new UsageLedger(() => ({ contextWindow: 1_000_000, cost: (u) => (u.inputUncached + u.inputCacheRead + u.output) / 1_000_000 }), 'm')
    const agent = new FakeAgent()
    parentWithChild(agent)
    ledger.load(agent.api.session.events)
    const report = costReport(ledger.byTurn(), ledger.subagents()).split('\n')
    expect(report[1]).toBe('subagents (1 run)  in 20k (80% cached)  out 2.0k  $0.0220')
    expect(report[2]).toBe('total $0.0110 + $0.0220 subagents = $0.0330')
  })
})

describe("the terminal UI's subagent card", () => {
  it("shows a running child as its task card with the child's live steps, and collapses it to one line when it finishes", async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    agent.commit('tool/call', { turn: 1, step: 1, callId: 't1', name: 'task', arguments: '{"description":"find alpha","prompt":"Where is alpha?","subagent_type":"explore"}' })
    agent.emit({ type: 'tool-progress', callId: 't1', text: '[explore] grep {"pattern":"alpha"}\n' })
    agent.emit({ type: 'tool-progress', callId: 't1', text: '[explore] read {"file_path":"a.txt"}\n' })
    await settle()
    let screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toContain('⏺ task explore: find alpha …')
    expect(screen).toContain('│ [explore] read {"file_path":"a.txt"}')
    agent.commit('tool/result', { turn: 1, step: 1, callId: 't1', content: [{ type: 'text', text: 'alpha is in a.txt:1' }], isError: false })
    await settle()
    screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toMatch(/⏺ task explore: find alpha ✓/)
    expect(screen).not.toContain('[explore] grep')
  })
})

describe('/subagents', () => {
  async function type(ui: ReturnType<typeof render>, text: string): Promise<void> {
    ui.stdin.write(text)
    await settle()
  }

  it("lists the session's subagents and opens the picked child's transcript", async () => {
    const agent = new FakeAgent()
    agent.commit('subagent/start', { callId: 'c1', child: 'child-aaaa-1', agent: 'explore', description: 'find alpha' })
    agent.commit('subagent/end', { callId: 'c1', child: 'child-aaaa-1', outcome: 'completed', usage: usage(1, 0, 1), cost: 0 })
    const opened: string[] = []
    const services = fakeServices({
      transcript: async (id) => {
        opened.push(id)
        return `session ${id}\n> Where is alpha?\nalpha is in a.txt:1\n`
      },
    })
    const ui = render(<App agent={agent.api} services={services} onExit={() => {}} />)
    await settle()
    await type(ui, '/subagents')
    await type(ui, '\r')
    let screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toContain('explore: find alpha')
    expect(screen).toContain('completed · child-aa')
    await waitForFrame(ui, 'Enter picks')
    await type(ui, '\r')
    await settle()
    screen = stripAnsi(ui.lastFrame() ?? '')
    expect(opened).toEqual(['child-aaaa-1'])
    expect(screen).toContain('alpha is in a.txt:1')
  })

  it('says so when the session started none', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    await type(ui, '/subagents')
    await type(ui, '\r')
    expect(stripAnsi(ui.lastFrame() ?? '')).toContain('This session has started no subagents.')
  })
})
