import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, cliEnv, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { sleep, Terminal } from './support/tmux.js'
import { terminalsClosedAfterEachTest } from './support/terminals.js'

const opened = terminalsClosedAfterEachTest()

async function start(script: MockResponse[], options: { columns?: number; rows?: number; box?: ReturnType<typeof sandbox>; args?: string[] } = {}) {
  const box = options.box ?? sandbox()
  const mock: MockModel = await startMockModel({ script })
  opened.mocks.push(mock)
  const term = new Terminal(['node', CLI, ...(options.args ?? [])], {
    cwd: box.cwd,
    env: { ...cliEnv({ url: mock.url, home: box.home }), TERM: 'xterm-256color' },
    columns: options.columns ?? 120,
    rows: options.rows ?? 40,
  })
  opened.terminals.push(term)
  await term.waitFor('/help')
  return { term, mock, box }
}

/** The user-role and tool messages of a recorded request, as `role: text`. */
function userAndTool(body: unknown): string[] {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages
  return messages
    .filter((m) => m.role === 'user' || m.role === 'tool')
    .map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`)
}

describe('the terminal UI keeps typed text away from the permission prompt', () => {
  it('answers nothing when a word with y and digits is typed, and sends the text as steering after the answer', async () => {
    const { term, mock } = await start([
      { toolCalls: [{ name: 'bash', arguments: { command: 'echo approved-run' } }] },
      { text: 'Finished.' },
    ])
    await term.submit('run it')
    await term.waitFor('Permission needed: bash echo approved-run')
    term.type('yes 1 2 use yarn')
    await sleep(300)
    await term.keys('Enter')
    await sleep(600)
    const waiting = term.screen()
    expect(waiting).toContain('Permission needed: bash echo approved-run')
    expect(waiting).not.toMatch(/⏺ bash echo approved-run ✓/)
    expect(mock.requests).toHaveLength(1)
    await term.keys('1')
    await term.waitFor('Finished.')
    const last = userAndTool(mock.requests.at(-1)?.body)
    const tool = last.findIndex((m) => m.startsWith('tool: ') && m.includes('approved-run'))
    const steer = last.findIndex((m) => m.includes('yes 1 2 use yarn'))
    expect(tool).toBeGreaterThanOrEqual(0)
    expect(steer).toBeGreaterThan(tool)
  })
})

describe('/fork in the terminal UI', () => {
  it('puts the chosen prompt back in the editor and sends nothing', async () => {
    const { term, mock } = await start([{ text: 'First answer.' }, { text: 'Second answer.' }])
    await term.submit('the first prompt')
    await term.waitFor('First answer.')
    await term.submit('the second prompt')
    await term.waitFor('Second answer.')
    expect(mock.requests).toHaveLength(2)
    await term.submit('/fork')
    await term.waitFor('Fork from a prompt')
    await term.keys('Down', 'Enter')
    const screen = await term.waitFor(/› the first prompt/)
    await sleep(1500)
    expect(mock.requests).toHaveLength(2)
    expect(term.screen()).toMatch(/› the first prompt/)
    expect(screen).not.toContain('Fork from a prompt')
  })
})

describe('while the agent works', () => {
  it('shows a spinner with the elapsed time before the first token, and streams bash output into the card as it runs', async () => {
    const { term } = await start(
      [
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo first-part; sleep 3; echo second-part' } }], delayMs: 1500 },
        { text: 'All finished.' },
      ],
      { args: ['--permission-mode', 'bypass'] },
    )
    await term.submit('run the slow script')
    const waiting = await term.waitFor('waiting for the model')
    expect(waiting).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for the model · \d/)
    const running = await term.waitFor('│ first-part')
    expect(running).not.toContain('│ second-part')
    expect(running).toMatch(/⏺ bash echo first-part; sleep 3; echo second-part …/)
    const done = await term.waitFor('All finished.')
    expect(done).toContain('│ second-part')
    expect(done).not.toContain('waiting for the model')
  })
})

describe('the task list in a real terminal', () => {
  it('draws the list the model wrote with todo_write above the editor', async () => {
    const { term } = await start([
      {
        toolCalls: [
          {
            name: 'todo_write',
            arguments: { todos: [{ content: 'map the modules', status: 'completed' }, { content: 'write the fix', status: 'in_progress' }, { content: 'run the tests', status: 'pending' }] },
          },
        ],
      },
      { text: 'Working on the fix.' },
    ])
    await term.submit('plan it')
    const screen = await term.waitFor('Working on the fix.')
    expect(screen).toMatch(/Tasks · 1\/3 done\n\s+☑ map the modules\n\s+◐ write the fix\n\s+☐ run the tests\n╭/)
  })
})

/** The smallest PNG header a sniffer takes for an image, plus a few bytes of body. */
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('rein-test-image-body')])

describe('attachments in a prompt', () => {
  it('sends an image pasted by its path to the model as an image block, and an @file as its content', async () => {
    const box = sandbox()
    const shots = join(box.root, 'shots')
    mkdirSync(shots)
    writeFileSync(join(shots, 'screen.png'), PNG)
    writeFileSync(join(box.cwd, 'notes.txt'), 'the secret word is kumquat\n')
    const { term, mock } = await start([{ text: 'I see it.' }], { box })
    term.type('what is in @notes.tx')
    await term.waitFor('@notes.txt · attaches the file')
    term.type('t and ')
    term.paste(join(shots, 'screen.png'))
    await sleep(200)
    await term.keys('Enter')
    const screen = await term.waitFor('I see it.')
    expect(screen).toContain('⎘ attached @notes.txt')
    expect(screen).not.toContain('kumquat')
    const body = JSON.stringify(mock.requests[0]?.body)
    expect(body).toContain(`data:image/png;base64,${PNG.toString('base64')}`)
    expect(body).toContain('the secret word is kumquat')
  })

  it('attaches nothing a Read deny rule covers, and says so in one line', async () => {
    const box = sandbox()
    writeFileSync(join(box.home, 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(secret.env)'] } }))
    writeFileSync(join(box.cwd, 'secret.env'), 'TOKEN=hunter2\n')
    const { term, mock } = await start([{ text: 'Fine.' }], { box })
    await term.submit('check @secret.env please')
    const screen = await term.waitFor('Fine.')
    expect(screen).toMatch(/@secret\.env is not attached: .*Read\(secret\.env\)/)
    expect(JSON.stringify(mock.requests[0]?.body)).not.toContain('hunter2')
  })
})

describe('the screen in a real terminal', () => {
  it('keeps a 300-line paste within the screen', async () => {
    const { term } = await start([{ text: 'Got it.' }], { rows: 30 })
    term.paste(Array.from({ length: 300 }, (_, i) => `row ${i + 1}`).join('\n'))
    const screen = await term.waitFor('row 300')
    expect(screen).toMatch(/… 2\d\d lines above/)
    expect(screen.split('\n').length).toBeLessThanOrEqual(30)
    expect(screen).toContain('/help')
  })

  it('leaves no stale copy of the prompt box after resizing from 120 to 60 to 160 columns', async () => {
    const { term } = await start([{ text: 'A short answer.' }])
    await term.submit('hello')
    await term.waitFor('A short answer.')
    term.type('draft text')
    await term.waitFor('draft text')
    for (const columns of [60, 160]) {
      term.resize(columns, 40)
      await sleep(800)
    }
    const screen = await term.waitFor('draft text')
    expect(screen.split('\n').filter((l) => l.includes('draft text'))).toHaveLength(1)
    expect(screen.split('\n').filter((l) => l.startsWith('╰'))).toHaveLength(1)
  })
})
