import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, cliEnv, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { sleep, Terminal } from './support/tmux.js'
import { terminalsClosedAfterEachTest } from './support/terminals.js'

const opened = terminalsClosedAfterEachTest()

async function start(options: {
  script: MockResponse[]
  args?: string[]
  columns?: number
  rows?: number
  box?: ReturnType<typeof sandbox>
  mock?: MockModel
}): Promise<{ term: Terminal; mock: MockModel; box: ReturnType<typeof sandbox> }> {
  const box = options.box ?? sandbox()
  const mock = options.mock ?? (await startMockModel({ script: options.script }))
  if (!options.mock) opened.mocks.push(mock)
  const env = { ...cliEnv({ url: mock.url, home: box.home }), TERM: 'xterm-256color' }
  const term = new Terminal(['node', CLI, ...(options.args ?? [])], {
    cwd: box.cwd,
    env,
    columns: options.columns ?? 120,
    rows: options.rows ?? 40,
  })
  opened.terminals.push(term)
  await term.waitFor('/help')
  return { term, mock, box }
}

/** The text of the user-role and tool messages of a recorded chat request, in order. */
function transcriptOf(body: unknown): string[] {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages
  return messages
    .filter((m) => m.role === 'user' || m.role === 'tool')
    .map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`)
}

describe('rein in a real terminal', () => {
  it('sends a prompt given on the command line as the first prompt', async () => {
    const { term, mock } = await start({ args: ['what', 'is', 'here?'], script: [{ text: 'Nothing yet.' }] })
    const screen = await term.waitFor('Nothing yet.')
    expect(screen).toContain('› what is here?')
    expect(transcriptOf(mock.requests[0].body)[0]).toBe('user: what is here?')
    await term.submit('/quit')
    await term.waitFor('EXITED 0')
  })

  it('runs a prompt with a tool call and an edit, showing the cards, the diff and the answer', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'greeting.txt'), 'hello world\n')
    const { term } = await start({
      box,
      args: ['--permission-mode', 'accept-edits'],
      script: [
        { text: 'Reading it first.', toolCalls: [{ name: 'read', arguments: { file_path: 'greeting.txt' } }] },
        { toolCalls: [{ name: 'edit', arguments: { file_path: 'greeting.txt', old_string: 'hello', new_string: 'goodbye' } }] },
        { text: 'Changed **hello** to `goodbye`.' },
      ],
    })
    await term.submit('change hello to goodbye in greeting.txt')
    const screen = await term.waitFor('Changed hello to goodbye.')
    expect(screen).toContain('› change hello to goodbye in greeting.txt')
    expect(screen).toMatch(/⏺ read greeting\.txt ✓/)
    expect(screen).toMatch(/⏺ edit greeting\.txt ✓/)
    expect(screen).toContain('-hello world')
    expect(screen).toContain('+goodbye world')
    expect(readFileSync(join(box.cwd, 'greeting.txt'), 'utf8')).toBe('goodbye world\n')
    await term.submit('/quit')
    await term.waitFor('EXITED 0')
  })

  it('lands steering typed while a slow tool runs after that tool result', async () => {
    const { term, mock } = await start({
      args: ['--permission-mode', 'bypass'],
      script: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 2; echo slow done' } }] },
        { text: 'Noted your steering.' },
      ],
    })
    await term.submit('run the slow thing')
    await term.waitFor(/⏺ bash sleep 2; echo slow done …/)
    await term.submit('also print the date')
    const queued = await term.waitFor('⇢ steer (next step): also print the date')
    expect(queued).toContain('1 queued')
    const screen = await term.waitFor('Noted your steering.')
    const card = screen.indexOf('⏺ bash sleep 2; echo slow done ✓')
    const steered = screen.indexOf('↳ steered: also print the date')
    expect(card).toBeGreaterThan(-1)
    expect(steered).toBeGreaterThan(card)
    expect(screen).not.toContain('⇢ steer')
    const last = transcriptOf(mock.requests.at(-1)?.body)
    expect(last.at(-2)).toContain('slow done')
    expect(last.at(-1)).toContain('also print the date')
  })

  it('cancels a streaming answer with Esc and keeps what was shown', async () => {
    const { term } = await start({
      script: [{ text: `Counting: ${Array.from({ length: 200 }, (_, i) => i).join(' ')}`, chunkDelayMs: 60, chunkSize: 4 }],
    })
    await term.submit('count slowly')
    await term.waitFor('Counting: 0 1')
    await term.keys('Escape')
    const screen = await term.waitFor('■ Cancelled.')
    expect(screen).toContain('(interrupted)')
    expect(screen).not.toContain('199')
  })

  it('asks before running a command, and obeys allow and deny', async () => {
    const { term, mock } = await start({
      script: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo first-run' } }] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo second-run' } }] },
        { text: 'All done.' },
      ],
    })
    await term.submit('run two commands')
    await term.waitFor('Permission needed: bash echo first-run')
    // A digit answers only when it comes on its own, 400 ms after the last typed text (docs/tui.md).
    await new Promise((r) => setTimeout(r, 500))
    await term.keys('1')
    await term.waitFor('Permission needed: bash echo second-run')
    await term.keys('4')
    await term.waitFor('Note to the model')
    await term.submit('not now please')
    const screen = await term.waitFor('All done.')
    expect(screen).toMatch(/⏺ bash echo first-run ✓/)
    expect(screen).toMatch(/⏺ bash echo second-run ✗/)
    const tools = transcriptOf(mock.requests.at(-1)?.body).filter((m) => m.startsWith('tool: '))
    expect(tools[0]).toContain('first-run')
    expect(tools[1]).toContain('not now please')
    expect(tools[1]).not.toMatch(/^tool: .*"text":"second-run/)
  })

  it('resumes the previous session from /resume', async () => {
    const box = sandbox()
    const mock = await startMockModel({ script: [{ text: 'First answer.' }, { text: 'Second answer.' }] })
    opened.mocks.push(mock)
    const first = await start({ box, mock, script: [] })
    await first.term.submit('remember the word tangerine')
    await first.term.waitFor('First answer.')
    await first.term.submit('/quit')
    await first.term.waitFor('EXITED 0')

    const second = await start({ box, mock, script: [] })
    await second.term.submit('/resume')
    await second.term.waitFor('Resume a session')
    await second.term.type('tangerine')
    const picker = await second.term.waitFor('❯ remember the word tangerine')
    expect(picker).toMatch(/1 turn\b/)
    await second.term.keys('Enter')
    const screen = await second.term.waitFor('Resumed session')
    expect(screen).toContain('› remember the word tangerine')
    expect(screen).toContain('First answer.')
    await second.term.submit('and now?')
    await second.term.waitFor('Second answer.')
    const last = transcriptOf(mock.requests.at(-1)?.body).join('\n')
    expect(last).toContain('tangerine')
  })

  it('explains how to configure a key when none is set, and leaves on a key press', async () => {
    const box = sandbox()
    const term = new Terminal(['node', CLI], {
      cwd: box.cwd,
      env: { ...cliEnv({ home: box.home, key: null }), TERM: 'xterm-256color' },
      columns: 100,
      rows: 30,
    })
    opened.terminals.push(term)
    const screen = await term.waitFor('Press any key to leave.')
    expect(screen).toContain('export DEEPSEEK_API_KEY=')
    expect(screen).toContain(`${box.home}/credentials`)
    expect(screen).toContain('rein demo')
    await term.keys('q')
    await term.waitFor('EXITED 1')
  })

  for (const columns of [60, 160]) {
    it(`fits a ${columns}-column terminal`, async () => {
      const { term } = await start({
        columns,
        rows: 30,
        script: [{ text: `A long answer that has to wrap: ${'word '.repeat(60)}end.` }],
      })
      await term.submit('say something long')
      const screen = await term.waitFor('end.')
      for (const line of screen.split('\n')) expect([...line].length).toBeLessThanOrEqual(columns)
      expect(screen).toContain('› say something long')
      expect(screen).toMatch(/deepseek-flash/)
      await sleep(100)
    })
  }
})
