import { describe, expect, it } from 'vitest'
import { CLI, cliEnv, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { sleep, Terminal } from './support/tmux.js'
import { terminalsClosedAfterEachTest } from './support/terminals.js'

const opened = terminalsClosedAfterEachTest()

/** Starts rein in a terminal; waits for the UI unless `ready` is false (to type ahead of it). */
async function start(script: MockResponse[], ready = true): Promise<{ term: Terminal; mock: MockModel }> {
  const box = sandbox()
  const mock = await startMockModel({ script })
  opened.mocks.push(mock)
  const term = new Terminal(['node', CLI], {
    cwd: box.cwd,
    env: { ...cliEnv({ url: mock.url, home: box.home }), TERM: 'xterm-256color' },
    columns: 120,
    rows: 40,
  })
  opened.terminals.push(term)
  if (ready) await term.waitFor('/help')
  return { term, mock }
}

/** The text of the user messages of a recorded request. */
function userTexts(mock: MockModel, index: number): string[] {
  const messages = (mock.requests[index].body as { messages: { role: string; content: unknown }[] }).messages
  return messages
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : (m.content as { text?: string }[]).map((p) => p.text ?? '').join('')))
}

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1
}

describe('typing, typing ahead and pasting in the terminal UI', () => {
  it('sends a prompt typed with Enter before the UI was ready', async () => {
    const { term, mock } = await start([{ text: 'Here is a listing.' }], false)
    term.sendAtOnce('what is here?', 'Enter')
    await term.waitFor('Here is a listing.')
    expect(userTexts(mock, 0)[0]).toBe('what is here?')
    await term.submit('/quit')
    await term.waitFor('EXITED 0')
  })

  it('sends text and Enter that arrive in one read as a prompt, not as a pasted newline', async () => {
    const { term, mock } = await start([{ text: 'Two files.' }])
    term.sendAtOnce('list the files', 'Enter')
    await term.waitFor('Two files.')
    expect(mock.requests).toHaveLength(1)
    expect(userTexts(mock, 0)[0]).toBe('list the files')
  })

  it('keeps the line breaks of a bracketed paste in the editor and sends only on a separate Enter', async () => {
    const { term, mock } = await start([{ text: 'Got both lines.' }])
    term.paste('line one\nline two\n')
    await term.waitFor('line two')
    await sleep(300)
    expect(mock.requests).toHaveLength(0)
    await term.keys('BSpace', 'Enter')
    await term.waitFor('Got both lines.')
    expect(userTexts(mock, 0)[0]).toBe('line one\nline two')
  })
})

describe('/compact in an ordinary session', () => {
  it('summarizes all but the newest exchange, says so once, and says in numbers why there is nothing more', async () => {
    const long = `please remember these notes: ${'the build uses pnpm and node 20; '.repeat(40)}`
    const { term, mock } = await start([{ text: 'Noted.' }, { text: 'The user asked me to remember that the build uses pnpm and node 20.' }])
    await term.submit('/compact')
    await term.waitFor('Nothing to compact: the conversation is empty.')

    term.paste(long)
    await sleep(200)
    await term.keys('Enter')
    await term.waitFor('Noted.')
    await term.submit('/compact')
    const screen = await term.waitFor(/Compacted \d+ messages \(about [\d,]+ tokens\) into a summary of about [\d,]+ tokens\./)
    expect(occurrences(term.history(), 'Compacted ')).toBe(1)
    // The summary request held the prompt (shadowed) and not the newest exchange, the answer, which stays verbatim.
    expect(userTexts(mock, 1).join('\n')).toContain('please remember these notes')
    expect(JSON.stringify(mock.requests[1].body)).not.toContain('Noted.')
    expect(screen).not.toContain('Nothing is old enough')

    await term.submit('/compact')
    await term.waitFor(/Nothing to compact: everything before the newest exchange is already one summary \([\d,]+ tokens\)\./)
    expect(mock.requests).toHaveLength(2)
  })
})
