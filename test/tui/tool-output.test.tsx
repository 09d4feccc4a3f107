import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import { App } from '../../src/cli/tui/App.js'
import { MAX_LINE_CHARS, printable, printableLine } from '../../src/cli/tui/printable.js'
import { plainText } from '../../src/frontend/render/index.js'
import { FakeAgent, fakeServices, settle, waitForFrame } from './support/fake-agent.js'

afterEach(() => cleanup())

function bashRun(agent: FakeAgent, output: string, callId = 'b1'): void {
  agent.commit('tool/call', { turn: 1, step: 1, callId, name: 'bash', arguments: '{"command":"make"}' })
  agent.commit('tool/result', { turn: 1, step: 1, callId, content: [{ type: 'text', text: output }], isError: false })
}

describe('long tool output on a card', () => {
  it('says how many earlier lines the card leaves out, and Ctrl+O prints them all below', async () => {
    const agent = new FakeAgent()
    bashRun(agent, Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n'))
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    const frame = await waitForFrame(ui, 'line 12')
    expect(frame).toContain('… 7 more lines (Ctrl+O)')
    expect(frame).not.toContain('line 7\n')
    expect(frame).toContain('line 8')
    ui.stdin.write('\x0f')
    const expanded = await waitForFrame(ui, 'bash make · output')
    const after = expanded.slice(expanded.indexOf('bash make · output'))
    for (let i = 1; i <= 12; i++) expect(after).toContain(`line ${i}`)
  })

  it('shows no marker when the whole output fits', async () => {
    const agent = new FakeAgent()
    bashRun(agent, 'only\ntwo lines')
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    const frame = await waitForFrame(ui, 'two lines')
    expect(frame).not.toContain('more line')
  })
})

describe('hostile tool output', () => {
  it('never writes an escape sequence from tool output or a file name to the terminal', async () => {
    const agent = new FakeAgent()
    agent.commit('tool/call', { turn: 1, step: 1, callId: 'r1', name: 'read', arguments: '{"file_path":"evil\\u001b]0;pwned\\u0007.txt"}' })
    agent.commit('tool/result', { turn: 1, step: 1, callId: 'r1', content: [{ type: 'text', text: 'x' }], isError: false })
    bashRun(agent, 'before\x1b[2J\x1b]52;c;ZXZpbA==\x07\x1b[31mred\x9b1mafter\rover\x00', 'b2')
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await waitForFrame(ui, 'over')
    await settle()
    const raw = ui.frames.join('')
    expect(raw).not.toContain('\x1b[2J')
    expect(raw).not.toContain('\x1b]')
    expect(raw).not.toContain('\x1b[31mred')
    expect(raw).not.toContain('\x9b')
    expect(raw).not.toContain('\x07')
    // The cards' text passes the front-end core's cleaner (src/frontend/render/plain.ts): sequences go, text stays.
    expect(raw).toContain('beforered')
    expect(raw).toContain('evil.txt')
  })

  it('cuts a 10 MB line of output on the card and keeps drawing', async () => {
    const agent = new FakeAgent()
    bashRun(agent, `${'a'.repeat(10 * 1024 * 1024)}\nthe end`)
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    const frame = await waitForFrame(ui, 'the end')
    expect(frame).toContain('│ aaaa')
    expect(frame.length).toBeLessThan(20_000)
    expect(printableLine('b'.repeat(MAX_LINE_CHARS + 5))).toBe(`${'b'.repeat(MAX_LINE_CHARS)} … (5 more characters)`)
  })

  it('turns control characters into visible pictures and keeps line breaks and tabs as spaces', () => {
    expect(printable('a\tb\r\nc\rd\x1b[0m\x7f')).toBe('a    b\nc\nd␛[0m␡')
    expect(printable('plain text, 中文')).toBe('plain text, 中文')
    // The same characters as every surface's cleaner (plainText): bidirectional overrides cannot reorder a line either.
    expect(printable('name\u202egpj.exe\u2066x')).toBe('name\ufffdgpj.exe\ufffdx')
    expect(printable('\x9b31m')).toBe(plainText('\x9b31m'))
  })
})

describe('waiting for the model', () => {
  it('shows a spinner with the elapsed time, then an estimate of the tokens received, until the answer is complete', async () => {
    const agent = new FakeAgent()
    agent.busy = true
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    agent.commit('turn/start', { turn: 1 }, { at: Date.now() })
    agent.commit('step/start', { turn: 1, step: 1 }, { at: Date.now() - 2_000 })
    const waiting = await waitForFrame(ui, 'waiting for the model')
    expect(waiting).toMatch(/waiting for the model · 2\.\d s/)
    agent.emit({ type: 'text-delta', turn: 1, step: 1, text: 'x'.repeat(400) })
    const receiving = await waitForFrame(ui, 'receiving')
    expect(receiving).toContain('↓ ~100 tokens')
    agent.commit('assistant/message', { turn: 1, step: 1, message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] } }, { at: Date.now() })
    const done = await waitForFrame(ui, 'Done.')
    expect(done).not.toContain('receiving')
    expect(done).not.toContain('waiting for the model')
  })
})
