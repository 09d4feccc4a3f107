import { cpSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CLI, cliEnv, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { sleep, Terminal } from '../tui/support/tmux.js'
import { terminalsClosedAfterEachTest } from '../tui/support/terminals.js'
import { FIXTURE } from './support.js'

/** Custom commands in the terminal UI (a real terminal through tmux): completion, sending, `/help`, `/skills`. */

const opened = terminalsClosedAfterEachTest()

async function start(args: string[] = []): Promise<{ term: Terminal; mock: MockModel }> {
  const box = sandbox()
  cpSync(FIXTURE, box.cwd, { recursive: true })
  const mock = await startMockModel()
  opened.mocks.push(mock)
  const term = new Terminal(['node', CLI, ...args], { cwd: box.cwd, env: { ...cliEnv({ url: mock.url, home: box.home }), TERM: 'xterm-256color' }, columns: 140, rows: 45 })
  opened.terminals.push(term)
  // The fixture's commands run !`…` and pre-approve tools, so the workspace asks to be trusted first.
  await term.waitFor('It defines what Rein would otherwise never run or allow without asking')
  term.type('y')
  await term.waitFor('/help')
  return { term, mock }
}

const userMessages = (mock: MockModel, index: number) =>
  (mock.requests[index].body as { messages: { role: string; content: unknown }[] }).messages
    .filter((m) => m.role === 'user' && typeof m.content === 'string' && !m.content.startsWith('<system-reminder>'))
    .map((m) => m.content as string)

describe('custom commands in the terminal UI', () => {
  it('Tab completes a custom command’s name, and sending it runs its expansion as the prompt', async () => {
    const { term, mock } = await start()
    mock.push({ text: 'Reviewed it.' })
    term.type('/rev')
    await term.waitFor('/review [file] [focus] (Tab)')
    await term.keys('Tab')
    await term.waitFor('› /review ')
    await term.submit('src/app.ts naming')
    await term.waitFor('Reviewed it.')
    expect(userMessages(mock, 0)[0]).toMatch(/^Review @src\/app\.ts with a focus on naming\./)
  })

  it('/help lists the custom commands and says the built-in wins over a clashing one', async () => {
    const { term } = await start()
    await term.submit('/help')
    const screen = await term.waitFor('is not used')
    expect(screen).toMatch(/\/review \[file\] \[focus\]\s+Review a file for bugs and style problems \(project\)/)
    expect(screen).toMatch(/\/model\s+the built-in \/model wins; .*\.claude\/commands\/model\.md is not used/)
  })

  it('/skills lists the skills and the ones that could not be loaded', async () => {
    const { term } = await start()
    await sleep(100)
    await term.submit('/skills')
    const screen = await term.waitFor('Not loaded:')
    expect(screen).toContain('pdf-tools (project,')
    expect(screen).toContain('broken-skill/SKILL.md has no description')
  })
})
