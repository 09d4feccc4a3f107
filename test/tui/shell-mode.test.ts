import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, cliEnv, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { Terminal } from './support/tmux.js'
import { terminalsClosedAfterEachTest } from './support/terminals.js'

const opened = terminalsClosedAfterEachTest()

async function start(script: MockResponse[], options: { args?: string[]; env?: Record<string, string> } = {}) {
  const box = sandbox()
  const mock: MockModel = await startMockModel({ script })
  opened.mocks.push(mock)
  const term = new Terminal(['node', CLI, ...(options.args ?? [])], {
    cwd: box.cwd,
    env: { ...cliEnv({ url: mock.url, home: box.home }), TERM: 'xterm-256color', ...options.env },
    columns: 120,
    rows: 40,
  })
  opened.terminals.push(term)
  await term.waitFor('/help')
  return { term, mock, box }
}

/** The text of every user-role message of a recorded request. */
function userTexts(body: unknown): string[] {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages
  return messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
}

describe('! shell mode in the terminal UI', () => {
  it('runs the command without asking, shows its output, and the model reads it as the user\'s on the next request', async () => {
    const { term, mock, box } = await start([{ text: 'I see the file list.' }])
    writeFileSync(join(box.cwd, 'notes.txt'), 'x')
    await term.submit('!ls; echo "marker-$((40+2))"')
    const shown = await term.waitFor('│ marker-42')
    expect(shown).toMatch(/⏺ ! ls; echo "marker-\$\(\(40\+2\)\)" ✓/)
    expect(shown).not.toContain('Permission needed')
    expect(mock.requests).toHaveLength(0)
    await term.submit('what did it print?')
    await term.waitFor('I see the file list.')
    const users = userTexts(mock.requests[0]?.body)
    const output = users.findIndex((t) => t.includes('$ ls; echo') && t.includes('notes.txt') && t.includes('marker-42'))
    expect(users.join('\n---\n')).toContain('marker-42')
    const prompt = users.findIndex((t) => t.includes('what did it print?'))
    expect(output).toBeGreaterThanOrEqual(0)
    expect(prompt).toBeGreaterThan(output)
    expect(users[output]).not.toMatch(/<[a-z-]+>/)
  })

  it('is refused in one sentence while a turn runs, and nothing runs', async () => {
    const { term, box } = await start([{ text: 'slow answer', delayMs: 4000 }])
    await term.submit('take your time')
    await term.waitFor('waiting for the model')
    await term.submit(`!touch ${join(box.cwd, 'ran.txt')}`)
    await term.waitFor(/Cannot run !touch \S+\s+while\s+the\s+agent\s+works;\s+wait\s+for\s+it\s+to\s+finish\s+or\s+press\s+Esc/)
    await term.waitFor('slow answer')
    const { existsSync } = await import('node:fs')
    expect(existsSync(join(box.cwd, 'ran.txt'))).toBe(false)
  })

  it('stops a command that never ends on Esc and on Ctrl+C, and the UI takes prompts again', async () => {
    const { term } = await start([{ text: 'still here' }])
    await term.submit('!echo started; sleep 600')
    await term.waitFor('Esc or Ctrl+C stops it')
    await term.keys('Escape')
    await term.waitFor(/⏺ ! echo started; sleep 600 ✗[\s\S]*cancelled; the command and its children were killed/)
    await term.submit('!sleep 600')
    await term.waitFor('Esc or Ctrl+C stops it')
    await term.keys('C-c')
    await term.waitFor(/⏺ ! sleep 600 ✗/)
    expect(term.screen()).not.toContain('Press Ctrl+C again to exit')
    await term.submit('are you there?')
    await term.waitFor('still here')
  })

  it('keeps terminal escapes in the output off the screen and a 10 MB output to its tail', async () => {
    const { term } = await start([{ text: 'ok' }])
    await term.submit(`!head -c 10000000 /dev/zero | tr '\\0' 'a'; echo; printf 'clear\\033[2J title\\033]0;pwned\\007 red\\033[31mtext\\n'; printf 'bad\\377utf\\n'`)
    // The card's printable pass drops whole escape sequences: the screen is not cleared, no title is set, no colour.
    const screen = await term.waitFor('│ clear title redtext', { timeoutMs: 30_000 })
    expect(screen).toMatch(/^· New session/)
    expect(screen).toContain('│ bad�utf')
    expect(screen).toMatch(/│ \[showing the last 307\d\d of 10000\d{3} bytes/)
    expect(screen).toMatch(/│ a{80,}…/)
    expect(screen).toMatch(/╭─+╮\n│ › +ask Rein, or \/help +│/)
  })
})
