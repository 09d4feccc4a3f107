import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, cliEnv, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { Terminal } from '../tui/support/tmux.js'
import { terminalsClosedAfterEachTest } from '../tui/support/terminals.js'

const opened = terminalsClosedAfterEachTest()

function open(box: ReturnType<typeof sandbox>, mock: MockModel): Terminal {
  const term = new Terminal(['node', CLI], { cwd: box.cwd, env: { ...cliEnv({ url: mock.url, home: box.home }), TERM: 'xterm-256color' }, columns: 120, rows: 40 })
  opened.terminals.push(term)
  return term
}

describe('the terminal UI and workspace trust', () => {
  it('asks once on first start in an untrusted workspace, listing what it defines; yes records trust and it does not ask again', async () => {
    const box = sandbox()
    mkdirSync(join(box.cwd, '.rein'), { recursive: true })
    writeFileSync(join(box.cwd, '.rein', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(make:*)'] } }))
    const mock = await startMockModel({ script: [] })
    opened.mocks.push(mock)
    const first = open(box, mock)
    const question = await first.waitFor('start without them')
    expect(question).toContain('Do you trust this workspace?')
    expect(question).toContain('allow rule "Bash(make:*)"')
    await first.keys('y')
    await first.waitFor('/help')
    expect(existsSync(join(box.home, 'trusted-workspaces.json'))).toBe(true)
    expect(readFileSync(join(box.home, 'trusted-workspaces.json'), 'utf8')).toContain('Bash(make:*)')
    first.close()

    const second = open(box, mock)
    const screen = await second.waitFor('/help')
    expect(screen).not.toContain('Do you trust this workspace?')
  })

  it('no starts without the grants and says so in the one notice', async () => {
    const box = sandbox()
    mkdirSync(join(box.cwd, '.rein'), { recursive: true })
    writeFileSync(join(box.cwd, '.rein', 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'bypass' } }))
    const mock = await startMockModel({ script: [] })
    opened.mocks.push(mock)
    const term = open(box, mock)
    await term.waitFor('start without them')
    await term.keys('n')
    const screen = await term.waitFor('This workspace is not trusted')
    expect(screen).toContain('default mode "bypass"')
    expect(existsSync(join(box.home, 'trusted-workspaces.json'))).toBe(false)
  })
})
