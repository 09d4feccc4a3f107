import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import { App } from '../../src/cli/tui/App.js'
import { stripAnsi } from '../../src/cli/tui/ansi.js'
import { Footer } from '../../src/cli/tui/Footer.js'
import { FakeAgent, fakeServices, settle } from './support/fake-agent.js'

afterEach(() => cleanup())

function answer(agent: FakeAgent, turn: number, usage: { inputUncached: number; inputCacheRead: number; output: number }) {
  agent.commit('assistant/message', {
    turn,
    step: 1,
    message: { role: 'assistant', content: [{ type: 'text', text: `answer ${turn}` }] },
    usage: { ...usage, reasoning: 0 },
  })
}

describe('the footer', () => {
  it('shows model, effort, mode, context used with its share of the window, cache hits of the last request and cost', async () => {
    const agent = new FakeAgent()
    answer(agent, 1, { inputUncached: 10_000, inputCacheRead: 0, output: 1_000 })
    answer(agent, 2, { inputUncached: 2_000, inputCacheRead: 18_000, output: 5_000 })
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const footer = stripAnsi(ui.lastFrame() ?? '').split('\n').slice(-2).join(' ')
    expect(footer).toContain('deepseek-v4-flash · high')
    expect(footer).toContain('default')
    // 2,000 + 18,000 + 5,000 tokens of a 1M window.
    expect(footer).toContain('ctx 25k (3%)')
    expect(footer).toContain('cache 90%')
    // $1 per million tokens of any kind: 11,000 + 25,000 tokens.
    expect(footer).toContain('$0.0360')
  })

  it('follows a permission mode change and a model switch', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    agent.setPermissionMode('plan')
    agent.setModel({ model: 'deepseek-v4-pro', effort: 'max' })
    agent.commit('request/header', { reason: 'model', config: agent.config, system: 's', tools: [] })
    await settle()
    const screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toContain('deepseek-v4-pro · max')
    expect(screen).toContain('Permission mode is now plan.')
    expect(screen.split('\n').slice(-2).join(' ')).toMatch(/\bplan\b/)
  })

  it('shows a dash for cache hits before the first response and counts queued messages', () => {
    const ui = render(
      <Footer
        model="m"
        effort="off"
        mode="bypass"
        figures={{ contextTokens: 0, contextShare: 0, totalCost: 0 }}
        queued={2}
        busy
      />,
    )
    const screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toContain('cache –')
    expect(screen).toContain('2 queued')
    expect(screen).toContain('Esc cancel')
  })
})
