import { describe, expect, it } from 'vitest'
import { CLI, cliEnv, sandbox } from '../support/cli.js'
import { startMockModel } from '../support/mock-model.js'
import { sleep, Terminal } from '../tui/support/tmux.js'
import { terminalsClosedAfterEachTest } from '../tui/support/terminals.js'

/** `/jobs` in a real terminal (tmux): the picker lists the model's background job, shows its output, and stops it. */

const opened = terminalsClosedAfterEachTest()

describe('/jobs in the terminal UI', () => {
  it('picks the running job, shows its output, and stops it from the second picker', async () => {
    const box = sandbox()
    const mock = await startMockModel({
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo tmux-job-output; sleep 60', run_in_background: true } }] }, { text: 'The job runs.' }],
    })
    opened.mocks.push(mock)
    const env = { ...cliEnv({ url: mock.url, home: box.home }), TERM: 'xterm-256color' }
    const term = new Terminal(['node', CLI, '--permission-mode', 'bypass'], { cwd: box.cwd, env, columns: 120, rows: 40 })
    opened.terminals.push(term)
    await term.waitFor('/help')
    await term.submit('start the job')
    await term.waitFor('The job runs.')
    await term.submit('/jobs')
    await term.waitFor(/job1 {2}echo tmux-job-output; sleep 60/)
    await sleep(200)
    await term.keys('Enter')
    await term.waitFor('Leave it running')
    const screen = await term.waitFor('tmux-job-output', { scrollback: true })
    expect(screen).toMatch(/job1: running · /)
    await term.keys('Down')
    await sleep(200)
    await term.keys('Enter')
    await term.waitFor(/Stopped job1 \(exit code \d+\)\./)
  })
})
