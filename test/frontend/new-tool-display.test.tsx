import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { UpdateTranslator } from '../../src/acp/updates.js'
import { App } from '../../src/cli/tui/App.js'
import { stripAnsi } from '../../src/cli/tui/ansi.js'
import { livePrinter } from '../../src/cli/print/live-printer.js'
import { toolLookup } from '../../src/frontend/render/index.js'
import type { SessionEvent } from '../../src/session/events.js'
import type { Tool } from '../../src/tools/tool.js'
import { EventShower } from '../../src/web/shown-events.js'
import { FakeAgent, fakeServices, settle } from '../tui/support/fake-agent.js'

// The done-when test of tool display (docs/tool-display.md): a tool no surface has heard of declares its display,
// and ACP, the terminal UI, the web server and the printed log all show its title and summary. No surface knows it.
const forecastTool: Tool<{ city: string }> = {
  name: 'forecast',
  description: 'The weather in a city.',
  schema: z.object({ city: z.string() }),
  readOnly: true,
  kind: 'fetch',
  category: 'fetch',
  display: {
    verb: 'Weather in',
    subject: (args) => (typeof args.city === 'string' ? args.city : undefined),
    summary: (result) => (result.isError ? undefined : 'sunny, 21 °C'),
  },
  async run() {
    return { content: [{ type: 'text', text: '{"sky":"clear","celsius":21}' }] }
  },
}

const cwd = '/work/project'
const call = { turn: 1, step: 1, callId: 'w1', name: 'forecast', arguments: '{"city":"Lisbon"}' }
const result = { turn: 1, step: 1, callId: 'w1', content: [{ type: 'text' as const, text: '{"sky":"clear","celsius":21}' }], isError: false }

function events(): SessionEvent[] {
  return [
    { seq: 0, time: 1, type: 'tool/call', data: call } as SessionEvent,
    { seq: 1, time: 2, type: 'tool/result', data: result } as SessionEvent,
  ]
}

afterEach(() => cleanup())

describe('a new tool with its own display', () => {
  it('is titled by its display on ACP', () => {
    const t = new UpdateTranslator(cwd, toolLookup([forecastTool]))
    const [announced] = t.replay(events()[0])
    expect(announced).toMatchObject({ sessionUpdate: 'tool_call', toolCallId: 'w1', title: 'Weather in Lisbon', kind: 'fetch' })
    // Without the tool, the same call gets the generic display: its name and first argument.
    expect(new UpdateTranslator(cwd).replay(events()[0])[0]).toMatchObject({ title: 'forecast Lisbon', kind: 'other' })
  })

  it('shows its subject and summary on the terminal UI card', async () => {
    const agent = Object.assign(new FakeAgent(cwd), { toolList: [forecastTool] })
    for (const e of events()) agent.commit(e.type, e.data as never, { surface: true })
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toMatch(/⏺ forecast Lisbon ✓ .*· sunny, 21 °C/)
  })

  it('reaches the web page as the title and summary beside its events', () => {
    const shower = new EventShower(toolLookup([forecastTool]), cwd, events)
    const [shownCall, shownResult] = events().map((e) => shower.show(e))
    expect(shownCall.shown).toEqual({ title: 'Weather in Lisbon', subject: 'Lisbon' })
    expect(shownResult.shown).toEqual({ summary: 'sunny, 21 °C' })
    // A result whose call was sent earlier (a later page of the log) finds its tool in the history.
    expect(new EventShower(toolLookup([forecastTool]), cwd, events).show(events()[1]).shown).toEqual({ summary: 'sunny, 21 °C' })
  })

  it('is named and summed up by the printed log', () => {
    let out = ''
    const print = livePrinter((s) => (out += s), { tools: toolLookup([forecastTool]), cwd })
    for (const event of events()) print({ type: 'event', event })
    expect(out).toContain('→ forecast Lisbon')
    expect(out).toContain('✓ sunny, 21 °C')
  })
})
