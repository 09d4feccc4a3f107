import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, cliEnv, sandbox } from '../support/cli.js'
import { startMockModel, type MockResponse } from '../support/mock-model.js'
import { sleep, Terminal } from './support/tmux.js'
import { terminalsClosedAfterEachTest } from './support/terminals.js'

const opened = terminalsClosedAfterEachTest()

async function start(script: MockResponse[], settings: Record<string, unknown>) {
  const box = sandbox()
  writeFileSync(join(box.home, 'settings.json'), JSON.stringify(settings))
  const mock = await startMockModel({ script })
  opened.mocks.push(mock)
  const env = { ...cliEnv({ url: mock.url, home: box.home }), TERM: 'xterm-256color', TMUX: undefined, COLORFGBG: undefined }
  const term = new Terminal(['node', CLI], { cwd: box.cwd, env, columns: 100, rows: 30 })
  opened.terminals.push(term)
  const bytes = join(box.root, 'output.bin')
  term.captureOutput(bytes)
  await term.waitFor('/help')
  const output = () => (existsSync(bytes) ? readFileSync(bytes, 'latin1') : '')
  return { term, mock, output }
}

describe('the terminal UI tells the user when it needs them', () => {
  it('sends an OSC 777 notification when a turn of more than five seconds ends, and nothing for a short one', { timeout: 40_000 }, async () => {
    const { term, output } = await start([{ text: 'Quick.' }, { text: 'Slow answer done.', delayMs: 5500 }], { tui: { notifications: 'osc777' } })
    await term.submit('quick one')
    await term.waitFor('Quick.')
    await sleep(300)
    expect(output()).not.toContain('\x1b]777;')
    await term.submit('slow one')
    await term.waitFor('Slow answer done.', { timeoutMs: 20_000 })
    for (let i = 0; i < 20 && !output().includes('\x1b]777;'); i++) await sleep(100)
    expect(output()).toContain('\x1b]777;notify;Rein;The turn finished.\x07')
  })

  it("never shows the terminal's answers (focus, background colour) as typed text, and follows the background it reports", { timeout: 30_000 }, async () => {
    const { term } = await start([{ text: 'Fine.' }], { tui: { notifications: 'bell' } })
    // What a terminal answers (blur, the background reply, focus), as it would arrive on the UI's stdin.
    term.type('\x1b[O')
    term.type('\x1b]11;rgb:ffff/ffff/ffff\x07')
    term.type('\x1b[I')
    await sleep(300)
    term.type('hello')
    await term.waitFor('hello')
    const screen = term.screen()
    expect(screen).not.toContain('[I')
    expect(screen).not.toContain('[O')
    expect(screen).not.toContain('11;rgb')
    await term.keys('BSpace', 'BSpace', 'BSpace', 'BSpace', 'BSpace')
    await term.submit('/theme')
    await term.waitFor('/theme · ')
    expect(term.screen()).toMatch(/auto current/)
    await term.keys('Escape')
    await term.submit('/theme auto')
    await term.waitFor('The theme is now light (auto)')
  })
})
