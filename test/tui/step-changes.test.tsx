import { render, cleanup } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import { App } from '../../src/cli/tui/App.js'
import { stripAnsi } from '../../src/cli/tui/ansi.js'
import { summarizeChanges } from '../../src/checkpoints/describe-changes.js'
import { Transcript } from '../../src/cli/tui/transcript.js'
import { FakeAgent, fakeServices, settle } from './support/fake-agent.js'

afterEach(() => cleanup())

/** One step whose bash call changed three files: `checkpoint/changes` is logged just before the call's result. */
function bashStep(agent: FakeAgent, turn = 1, step = 1): void {
  agent.commit('step/start', { turn, step })
  agent.commit('assistant/message', {
    turn,
    step,
    message: { role: 'assistant', content: [{ type: 'tool-call', id: `b${step}`, name: 'bash', arguments: '{"command":"make"}' }] },
  })
  agent.commit('checkpoint/created', { turn, step, commit: 'c'.repeat(40), files: 3 })
  agent.commit('tool/call', { turn, step, callId: `b${step}`, name: 'bash', arguments: '{"command":"make"}' })
  agent.commit('checkpoint/changes', {
    turn,
    step,
    paths: [
      { path: 'a.txt', kind: 'modified' },
      { path: 'b.txt', kind: 'added' },
      { path: 'c.txt', kind: 'deleted' },
    ],
  })
  agent.commit('tool/result', { turn, step, callId: `b${step}`, content: [{ type: 'text', text: 'built' }], isError: false })
  agent.commit('step/end', { turn, step })
}

describe('what a step changed, in the terminal UI', () => {
  it('prints one short line after the step’s tool card naming the changed files', async () => {
    const agent = new FakeAgent()
    agent.commit('turn/start', { turn: 1 })
    bashStep(agent)
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toContain('± 3 files changed: a.txt, b.txt, c.txt')
    expect(screen.indexOf('± 3 files changed')).toBeGreaterThan(screen.indexOf('⏺ bash make'))
  })

  it('folds a long list after three names', () => {
    const paths = ['a', 'b', 'c', 'd', 'e'].map((p) => ({ path: `${p}.ts`, kind: 'modified' as const }))
    expect(summarizeChanges(paths)).toBe('5 files changed: a.ts, b.ts, c.ts, … and 2 more')
    expect(summarizeChanges(paths.slice(0, 1))).toBe('1 file changed: a.ts')
  })

  it('shows a listing logged after its step ended at once, and a step that changed nothing not at all', () => {
    const t = new Transcript()
    t.load([
      { seq: 0, time: 0, type: 'step/end', data: { turn: 1, step: 1 } },
      { seq: 1, time: 0, type: 'checkpoint/changes', data: { turn: 1, step: 1, paths: [{ path: 'x.txt', kind: 'added' }] } },
      { seq: 2, time: 0, type: 'checkpoint/changes', data: { turn: 1, step: 2, paths: [] } },
      { seq: 3, time: 0, type: 'turn/end', data: { turn: 1, reason: 'completed' } },
    ])
    expect(t.snapshot().finished.map((i) => (i.kind === 'changes' ? i.paths.map((p) => p.path) : i.kind))).toEqual([['x.txt']])
  })
})
