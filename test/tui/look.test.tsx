import { cleanup, render } from 'ink-testing-library'
import stringWidth from 'string-width'
import { afterEach, describe, expect, it } from 'vitest'
import type { PermissionRequest } from '../../src/agent/types.js'
import { App } from '../../src/cli/tui/App.js'
import { stripAnsi } from '../../src/cli/tui/ansi.js'
import { Footer, fitParts } from '../../src/cli/tui/Footer.js'
import { Transcript } from '../../src/cli/tui/transcript.js'
import { FakeAgent, fakeServices, settle, waitForFrame } from './support/fake-agent.js'

afterEach(() => cleanup())

const FIGURES = { contextTokens: 812_345, contextShare: 0.81, cacheHitShare: 0.94, totalCost: 12.3456, subagentCost: 4.5678 }

describe('the footer', () => {
  it('stays on one line with a long model name, subagent cost and a queue, dropping the key help first', () => {
    const ui = render(<Footer model="deepseek-v4-flash-vision-exp" effort="max" mode="accept-edits" figures={FIGURES} queued={3} busy hint={undefined} />)
    const lines = stripAnsi(ui.lastFrame() ?? '').split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('deepseek-v4-flash-vision-exp · max')
    expect(lines[0]).toContain('accept-edits')
    expect(lines[0]).toContain('ctx 812k (81%)')
    expect(lines[0]).toContain('$12.35')
    expect(lines[0]).not.toContain('Esc cancel')
  })

  it('keeps every part that fits in 120 columns and drops by rank, never the model, mode, context or cost', () => {
    const parts = [
      { text: 'm'.repeat(40), drop: 0 },
      { text: 'accept-edits', drop: 0 },
      { text: 'cache 94%', drop: 4 },
      { text: '+ $4.5678 subagents', drop: 3 },
      { text: 'Esc cancel · Enter steers · Tab queues', drop: 5 },
    ]
    const kept = fitParts(parts, 119)
    const width = kept.reduce((s, p) => s + stringWidth(p.text), 0) + 2 * (kept.length - 1)
    expect(width).toBeLessThanOrEqual(119)
    expect(kept.map((p) => p.text)).toEqual(parts.slice(0, 4).map((p) => p.text))
    expect(fitParts(parts, 10).map((p) => p.drop)).toEqual([0, 0])
  })

  it('warns in a line of its own while permissions are bypassed', () => {
    const ui = render(<Footer model="deepseek-flash" effort="high" mode="bypass" figures={FIGURES} queued={0} busy={false} />)
    const lines = stripAnsi(ui.lastFrame() ?? '').split('\n')
    expect(lines[0]).toMatch(/^⚠ Bypass mode: every tool call runs without asking/)
    const calm = render(<Footer model="deepseek-flash" effort="high" mode="default" figures={FIGURES} queued={0} busy={false} />)
    expect(stripAnsi(calm.lastFrame() ?? '')).not.toContain('Bypass')
  })
})

describe('the plan box', () => {
  it('renders the plan as Markdown, in the question and in the transcript afterwards', async () => {
    const plan = '# Add sub\n\n1. **Edit** `math.ts`\n2. Run the tests'
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const asked: PermissionRequest = {
      call: { turn: 1, step: 1, callId: 'p1', name: 'exit_plan_mode', arguments: JSON.stringify({ plan }), input: { plan } },
      reason: 'The plan is ready.',
    }
    void agent.permissionAsker!(asked, new AbortController().signal)
    const screen = await waitForFrame(ui, 'Add sub')
    expect(screen).toContain('1. Edit math.ts')
    expect(screen).not.toContain('**')
    expect(screen).not.toContain('# Add sub')
    const transcript = new Transcript()
    transcript.load([{ seq: 0, time: 0, type: 'plan/reviewed', data: { callId: 'p1', plan, outcome: 'kept-planning' } } as never])
    const item = transcript.snapshot().finished[0]
    expect(item).toMatchObject({ kind: 'expanded', markdown: true })
    ui.unmount()
  })
})

describe('injected context at a session start', () => {
  it('prints context that entered together as one line, and a hook message on its own', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    agent.commit('turn/start', { turn: 1 } as never)
    for (const kind of ['workspace-context', 'runtime-context', 'skills']) {
      agent.commit('context/message', { content: [{ type: 'text', text: `<system-reminder>${kind}\nline two</system-reminder>` }], source: { kind } } as never, { surface: true })
    }
    agent.commit('context/message', { content: [{ type: 'text', text: 'tests still fail' }], source: { kind: 'hook', event: 'SessionStart' } } as never, { surface: true })
    agent.commit('request/sent', { turn: 1, step: 1 } as never)
    const screen = stripAnsi(await waitForFrame(ui, 'tests still fail'))
    const contextLines = screen.split('\n').filter((l) => l.startsWith('⟐'))
    expect(contextLines).toHaveLength(2)
    expect(contextLines[0]).toContain('context · workspace-context, runtime-context, skills')
    expect(contextLines[1]).toContain('⟐ hook: tests still fail')
    ui.unmount()
  })
})
