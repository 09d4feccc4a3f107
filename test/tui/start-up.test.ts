import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, cliEnv, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { sleep, Terminal } from './support/tmux.js'
import { terminalsClosedAfterEachTest } from './support/terminals.js'

/**
 * The terminal UI's start-up (docs/performance.md): the first frame is drawn before ink and the agent load, ink then
 * takes it over, and nothing typed in between is lost or sees less than a fully opened agent.
 */

const opened = terminalsClosedAfterEachTest()

function open(options: { script?: MockResponse[]; args?: string[]; box?: ReturnType<typeof sandbox> }, mock: MockModel): Terminal {
  const box = options.box ?? sandbox()
  const term = new Terminal(['node', CLI, ...(options.args ?? [])], {
    cwd: box.cwd,
    env: { ...cliEnv({ url: mock.url, home: box.home }), TERM: 'xterm-256color' },
    columns: 100,
    rows: 30,
  })
  opened.terminals.push(term)
  return term
}

async function mockWith(script: MockResponse[] = []): Promise<MockModel> {
  const mock = await startMockModel({ script })
  opened.mocks.push(mock)
  return mock
}

/** Polls the screen closely, so the test acts on the first frame rather than on whatever follows it. */
async function firstSight(term: Terminal, text: string): Promise<string> {
  for (let i = 0; i < 3000; i++) {
    const screen = term.screen()
    if (screen.includes(text)) return screen
    await sleep(5)
  }
  throw new Error(`the terminal never showed ${text}; it shows:\n${term.screen()}`)
}

const count = (text: string, needle: string): number => text.split(needle).length - 1

/** The user-role texts of a recorded request, in order. */
function userTexts(mock: MockModel, index: number): string[] {
  const messages = (mock.requests[index].body as { messages: { role: string; content: unknown }[] }).messages
  return messages
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : (m.content as { text?: string }[]).map((p) => p.text ?? '').join('')))
}

describe('the terminal UI starting up', () => {
  it('shows the banner and the prompt box first, and ink takes them over leaving one of each', async () => {
    const mock = await mockWith()
    const term = open({}, mock)
    const first = await firstSight(term, 'New session')
    expect(first.split('\n')[0]).toMatch(/^· New session [0-9a-f]{8} in .*\. \/help lists commands\.$/)
    expect(first).toContain('› ')
    const screen = await term.waitFor('deepseek-flash')
    const lines = screen.split('\n')
    expect(lines[0]).toBe(first.split('\n')[0])
    expect(lines[1]).toMatch(/^╭─+╮$/)
    expect(lines[2]).toMatch(/^│ › +ask Rein, or \/help +│$/)
    expect(lines[3]).toMatch(/^╰─+╯$/)
    expect(lines[4]).toMatch(/^deepseek-flash · high {2}default/)
    expect(lines).toHaveLength(5)
    expect(count(screen, 'New session')).toBe(1)
    expect(count(screen, '╭')).toBe(1)
  })

  it('opens the session the banner names', async () => {
    const mock = await mockWith([{ text: 'Hello there.' }])
    const box = sandbox()
    const term = open({ box }, mock)
    const first = await firstSight(term, 'New session')
    const shortId = /New session ([0-9a-f]{8})/.exec(first)![1]
    await term.waitFor('deepseek-flash')
    await term.submit('hi')
    await term.waitFor('Hello there.')
    await term.submit('/quit')
    await term.waitFor('EXITED 0')
    const sessions = join(box.home, 'sessions')
    const files = readdirSync(sessions, { recursive: true }).map(String).filter((f) => f.endsWith('.jsonl'))
    expect(files).toHaveLength(1)
    expect(files[0]).toContain(`/${shortId}`)
  })

  it('runs a custom command typed the moment the first frame shows, with the workspace skills listed', async () => {
    const box = sandbox()
    mkdirSync(join(box.cwd, '.rein', 'commands'), { recursive: true })
    writeFileSync(join(box.cwd, '.rein', 'commands', 'greet.md'), '---\ndescription: Greet someone\n---\nGreet $ARGUMENTS warmly, in one line.\n')
    mkdirSync(join(box.cwd, '.rein', 'skills', 'tidy-imports'), { recursive: true })
    writeFileSync(
      join(box.cwd, '.rein', 'skills', 'tidy-imports', 'SKILL.md'),
      '---\nname: tidy-imports\ndescription: Sorts and groups import statements\n---\nSort them.\n',
    )
    const mock = await mockWith([{ text: 'Hello, Ada!' }])
    const term = open({ box }, mock)
    await firstSight(term, 'New session')
    term.sendAtOnce('/greet Ada', 'Enter')
    await term.waitFor('Hello, Ada!')
    const texts = userTexts(mock, 0)
    expect(texts[0].trim()).toBe('Greet Ada warmly, in one line.')
    expect(texts.some((t) => t.includes('tidy-imports') && t.includes('Sorts and groups import statements'))).toBe(true)
  })

  it('takes the first frame back and says why in one sentence when the session cannot open', async () => {
    const mock = await mockWith()
    const term = open({ args: ['--model', 'deepseek-chat'] }, mock)
    const screen = await term.waitFor('EXITED 1')
    expect(screen).toMatch(/deepseek-chat/)
    expect(screen).not.toContain('╭')
    expect(screen).not.toContain('New session')
  })
})

/** The screen with its colours, as the terminal holds it (`capture-pane -e`). */
function styledScreen(term: Terminal): string {
  return execFileSync('tmux', ['-L', term.socket, '-f', '/dev/null', 'capture-pane', '-e', '-p', '-t', term.name], { encoding: 'utf8' })
}

const CODE_ANSWER = 'Here it is:\n\n```ts\nconst answer = 42\n```'

/** The line that shows the code, with its escape sequences. */
const codeLine = (screen: string): string => screen.split('\n').find((l) => l.replace(/\x1b\[[0-9;]*m/g, '').includes('answer = 42')) ?? ''

describe('code highlighting, loaded after the first frame', () => {
  it('highlights the code of the first answer of a new session, even one sent as the UI opens', async () => {
    const mock = await mockWith([{ text: CODE_ANSWER }])
    const term = open({ args: ['show', 'me'] }, mock)
    await term.waitFor('answer = 42')
    expect(codeLine(styledScreen(term))).toMatch(/\x1b\[[0-9;]+mconst\b/)
  })

  it('highlights the code in the history of a session continued from the command line', async () => {
    const box = sandbox()
    const mock = await mockWith([{ text: CODE_ANSWER }])
    const first = open({ box }, mock)
    await first.waitFor('deepseek-flash')
    await first.submit('show me')
    await first.waitFor('answer = 42')
    await first.submit('/quit')
    await first.waitFor('EXITED 0')
    const second = open({ box, args: ['--continue'] }, mock)
    await second.waitFor('Resumed session')
    expect(codeLine(styledScreen(second))).toMatch(/\x1b\[[0-9;]+mconst\b/)
  })
})

/** An MCP server (the test fixture) that answers only after `delayMs`: the agent cannot open before then. */
function slowMcpSettings(home: string, delayMs: number): void {
  const server = join(import.meta.dirname, '../mcp/fixtures/server.mjs')
  const mcpServers = { slow: { command: process.execPath, args: ['-e', `setTimeout(() => import(process.argv[1]), ${delayMs})`, server, 'stdio'] } }
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mcpServers }))
}

describe('keys typed while the session is still opening', () => {
  it('are held and handed to the editor, and the first request has the MCP tools it waited for', async () => {
    const box = sandbox()
    slowMcpSettings(box.home, 3000)
    const mock = await mockWith([{ text: 'Hi from the model.' }])
    const term = open({ box }, mock)
    await firstSight(term, 'New session')
    term.type('hello there')
    const editor = await term.waitFor('› hello there')
    expect(editor).toContain('deepseek-flash')
    await term.keys('Enter')
    await term.waitFor('Hi from the model.')
    expect(userTexts(mock, 0)[0]).toBe('hello there')
    const tools = (mock.requests[0].body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name)
    expect(tools).toEqual(expect.arrayContaining([expect.stringMatching(/echo/), expect.stringMatching(/add/)]))
  })

  it('Ctrl+C ends the start as it did before the first frame, and takes the frame back', async () => {
    const box = sandbox()
    slowMcpSettings(box.home, 60_000)
    const mock = await mockWith()
    const term = open({ box }, mock)
    await firstSight(term, 'New session')
    await term.keys('C-c')
    const screen = await term.waitFor('EXITED 130')
    expect(screen).not.toContain('╭')
    expect(screen).not.toContain('New session')
  })
})
