import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, cliEnv, sandbox } from '../support/cli.js'
import { startMockModel } from '../support/mock-model.js'
import { Terminal } from './support/tmux.js'
import { terminalsClosedAfterEachTest } from './support/terminals.js'

const opened = terminalsClosedAfterEachTest()

describe('/rewind in a real terminal', () => {
  it('shows what the turn changed, rewinds code and conversation after the dry run, continues in the fork, and undoes it', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'a.txt'), 'mine\n')
    const mock = await startMockModel({
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo agent > a.txt' } }] }, { text: 'Rewrote it.' }],
    })
    opened.mocks.push(mock)
    const term = new Terminal(['node', CLI, '--permission-mode', 'bypass'], {
      cwd: box.cwd,
      env: { ...cliEnv({ url: mock.url, home: box.home }), TERM: 'xterm-256color' },
      columns: 120,
      rows: 40,
    })
    opened.terminals.push(term)
    await term.waitFor('/help')
    await term.submit('rewrite a.txt')
    expect(await term.waitFor('Rewrote it.')).toContain('± 1 file changed: a.txt')
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('agent\n')

    await term.submit('/rewind')
    await term.waitFor('turn 1: rewrite a.txt')
    await term.keys('Enter')
    const plan = await term.waitFor('Restore code and conversation')
    expect(plan).toContain('Would restore the files as they were at the start of turn 1')
    expect(plan).toContain('put back     a.txt')
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('agent\n')
    await term.keys('Enter')
    // The fork's own log says how it began.
    await term.waitFor('↺ Rewound to the start of turn 1: 1 file restored.')
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('mine\n')

    await term.submit('/rewind undo')
    await term.waitFor('Undid the rewind to turn 1')
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('agent\n')
    await term.submit('/quit')
    await term.waitFor('EXITED 0')
  })
})
