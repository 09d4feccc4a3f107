import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CLI, cliEnv, sandbox as testBox } from '../support/cli.js'
import { startMockModel } from '../support/mock-model.js'
import { requireBwrap } from '../sandbox/bwrap-required.js'
import { Terminal } from './support/tmux.js'
import { terminalsClosedAfterEachTest } from './support/terminals.js'

const opened = terminalsClosedAfterEachTest()
const bwrap = requireBwrap()

describe.runIf(bwrap.available)('the sandbox in a real terminal', () => {
  it('marks a sandboxed command’s card, shows what the sandbox stopped, and /sandbox shows the policy', async () => {
    const box = testBox()
    const mock = await startMockModel({
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo inside; touch /etc/rein-tui-probe' } }] }, { text: 'Tried it.' }],
    })
    opened.mocks.push(mock)
    const term = new Terminal(['node', CLI, '--sandbox', '--permission-mode', 'default'], {
      cwd: box.cwd,
      env: { ...cliEnv({ url: mock.url, home: box.home }), TERM: 'xterm-256color' },
      columns: 120,
      rows: 40,
    })
    opened.terminals.push(term)
    await term.waitFor('/help')
    await term.submit('try it')
    const screen = await term.waitFor('Tried it.')
    expect(screen).toMatch(/⏺ bash echo inside; touch \/etc\/rein-tui-probe ✓ \d+ ms · sandboxed/)
    expect(screen).toContain('⛨ The sandbox kept /etc/rein-tui-probe read-only')
    expect(screen).toContain('│ inside')
    expect(screen).not.toContain('│ [sandbox]')
    expect(existsSync('/etc/rein-tui-probe')).toBe(false)

    await term.submit('/sandbox')
    const report = await term.waitFor('This machine:')
    expect(report).toContain('Sandbox: on (--sandbox for this run)')
    expect(report).toContain('This machine: bubblewrap works')
    expect(report).toContain('Network: none')
    await term.submit('/quit')
    await term.waitFor('EXITED 0')
  })
})
