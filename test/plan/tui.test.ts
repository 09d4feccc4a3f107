import { cpSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, cliEnv, sandbox } from '../support/cli.js'
import { startMockModel } from '../support/mock-model.js'
import { Terminal } from '../tui/support/tmux.js'
import { terminalsClosedAfterEachTest } from '../tui/support/terminals.js'
import { FIXTURE } from '../slash/support.js'

/** A plan-mode session in the terminal UI goes from plan to approved edits. */

const opened = terminalsClosedAfterEachTest()

const PLAN = '1. Create src/sub.ts\n2. Export sub'

describe('plan mode in the terminal UI', () => {
  it('shows the plan for review; approving with accept-edits lets the edit run without another question', async () => {
    const box = sandbox()
    cpSync(FIXTURE, box.cwd, { recursive: true })
    const mock = await startMockModel({
      script: [
        { toolCalls: [{ name: 'exit_plan_mode', arguments: { plan: PLAN } }] },
        { toolCalls: [{ name: 'write', arguments: { file_path: 'src/sub.ts', content: 'export const sub = 2\n' } }] },
        { text: 'All done.' },
      ],
    })
    opened.mocks.push(mock)
    const term = new Terminal(['node', CLI, '--permission-mode', 'plan'], {
      cwd: box.cwd,
      env: { ...cliEnv({ url: mock.url, home: box.home }), TERM: 'xterm-256color' },
      columns: 120,
      rows: 45,
    })
    opened.terminals.push(term)
    await term.waitFor('It defines what Rein would otherwise never run or allow without asking')
    term.type('n')
    await term.waitFor('/help')
    await term.submit('add sub')
    const review = await term.waitFor('The plan is ready for review')
    expect(review).toContain('1. Create src/sub.ts')
    expect(review).toContain('2. Approve the plan and accept edits')
    // A digit answers only when it comes on its own, 400 ms after the last typed text (docs/tui.md).
    await new Promise((r) => setTimeout(r, 500))
    await term.keys('2')
    await term.waitFor('All done.')
    expect(readFileSync(join(box.cwd, 'src/sub.ts'), 'utf8')).toBe('export const sub = 2\n')
    expect(term.history()).toContain('plan · approved, continuing in accept-edits')
  })
})
