import { mkdtempSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import { App } from '../../src/cli/tui/App.js'
import { stripAnsi } from '../../src/cli/tui/ansi.js'
import { filePromptHistory, HISTORY_KEEP, promptHistoryFile, searchBack } from '../../src/cli/tui/history.js'
import { FakeAgent, fakeServices, settle, waitForFrame } from './support/fake-agent.js'

afterEach(() => cleanup())

const home = () => mkdtempSync(join(tmpdir(), 'rein-history-'))

async function type(ui: ReturnType<typeof render>, text: string): Promise<void> {
  ui.stdin.write(text)
  await settle(15)
}

const screen = (ui: ReturnType<typeof render>) => stripAnsi(ui.lastFrame() ?? '')

describe('the prompt history file', () => {
  it('keeps prompts per workspace in an owner-only file, oldest first, and drops consecutive repeats', () => {
    const h = home()
    const history = filePromptHistory(h)
    history.add('/work/a', 'first')
    history.add('/work/a', 'second')
    history.add('/work/a', 'second')
    history.add('/work/b', 'elsewhere')
    expect(filePromptHistory(h).load('/work/a')).toEqual(['first', 'second'])
    expect(filePromptHistory(h).load('/work/b')).toEqual(['elsewhere'])
    expect(statSync(promptHistoryFile(h, '/work/a')).mode & 0o777).toBe(0o600)
    expect(statSync(join(h, 'prompt-history')).mode & 0o777).toBe(0o700)
  })

  it('stays bounded: past twice the kept count the file is rewritten to the newest prompts', () => {
    const h = home()
    const history = filePromptHistory(h)
    for (let i = 0; i < 2 * HISTORY_KEEP + 5; i++) history.add('/w', `prompt ${i}`)
    const lines = readFileSync(promptHistoryFile(h, '/w'), 'utf8').trim().split('\n')
    expect(lines.length).toBeLessThanOrEqual(2 * HISTORY_KEEP)
    const loaded = filePromptHistory(h).load('/w')
    expect(loaded).toHaveLength(HISTORY_KEEP)
    expect(loaded.at(-1)).toBe(`prompt ${2 * HISTORY_KEEP + 4}`)
  })

  it('skips a torn or foreign line and keeps the rest', () => {
    const h = home()
    mkdirSync(join(h, 'prompt-history'), { recursive: true })
    writeFileSync(promptHistoryFile(h, '/w'), '{"text":"kept"}\nnot json\n{"text":42}\n{"text":"also kept"}\n{"te')
    expect(filePromptHistory(h).load('/w')).toEqual(['kept', 'also kept'])
  })

  it('searches back case-insensitively from before an index', () => {
    const list = ['Run the tests', 'fix the lint', 'run the build']
    expect(searchBack(list, 'run')).toBe(2)
    expect(searchBack(list, 'run', 2)).toBe(0)
    expect(searchBack(list, 'deploy')).toBe(-1)
  })
})

function withHistory(prompts: string[]) {
  const h = home()
  const history = filePromptHistory(h)
  for (const p of prompts) history.add('/work/project', p)
  return { services: fakeServices({ promptHistory: history }), history }
}

describe('history in the editor', () => {
  it('Ctrl+R finds the newest earlier prompt containing the typed text, Ctrl+R again an older one, Enter puts it in the editor unsent', async () => {
    const agent = new FakeAgent()
    const { services } = withHistory(['run the unit tests', 'fix the lint', 'run the e2e tests'])
    const ui = render(<App agent={agent.api} services={services} onExit={() => {}} />)
    await settle()
    await type(ui, '\x12')
    await type(ui, 'run')
    expect(await waitForFrame(ui, 'reverse search “run” · Ctrl+R older')).toContain('› run the e2e tests')
    await type(ui, '\x12')
    await waitForFrame(ui, '› run the unit tests')
    await type(ui, '\r')
    expect(agent.calls).toEqual([])
    expect(screen(ui)).not.toContain('reverse search')
    await type(ui, ' again')
    await type(ui, '\r')
    expect(agent.calls).toEqual([{ verb: 'followUp', text: 'run the unit tests again', id: 'm0' }])
  })

  it('Esc leaves the search and gives back the draft; a query nothing matches says so', async () => {
    const agent = new FakeAgent()
    const { services } = withHistory(['fix the lint'])
    const ui = render(<App agent={agent.api} services={services} onExit={() => {}} />)
    await settle()
    await type(ui, 'my draft')
    await type(ui, '\x12')
    await type(ui, 'zzz')
    await waitForFrame(ui, 'no earlier prompt has it')
    await type(ui, '\x1b')
    await waitForFrame(ui, '› my draft')
    expect(agent.calls).toEqual([])
  })

  it('Up on an empty editor walks earlier sessions\' prompts when nothing is queued, and a sent prompt joins the file', async () => {
    const agent = new FakeAgent()
    const { services, history } = withHistory(['from yesterday', 'from this morning'])
    const ui = render(<App agent={agent.api} services={services} onExit={() => {}} />)
    await settle()
    await type(ui, '\x1b[A')
    await waitForFrame(ui, '› from this morning')
    await type(ui, '\x1b[A')
    await waitForFrame(ui, '› from yesterday')
    await type(ui, '\x1b[B')
    await type(ui, '\x1b[B')
    await waitForFrame(ui, 'ask Rein')
    await type(ui, 'a new prompt')
    await type(ui, '\r')
    expect(history.load('/work/project').at(-1)).toBe('a new prompt')
  })
})
