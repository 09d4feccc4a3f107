import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import type { PermissionAnswer, PermissionRequest } from '../../src/agent/types.js'
import { App } from '../../src/cli/tui/App.js'
import { stripAnsi } from '../../src/cli/tui/ansi.js'
import { FakeAgent, fakeServices, settle, waitForFrame } from './support/fake-agent.js'

// Issue 33 item 4: the edit prompt shows the diff before approval; a long command is shown whole, wrapped.
afterEach(() => cleanup())

function request(name: string, input: Record<string, unknown>): PermissionRequest {
  return { call: { turn: 1, step: 1, callId: 'c1', name, arguments: JSON.stringify(input), input }, reason: `${name} is not allowed by a rule.` }
}

async function prompt(cwd: string, asked: PermissionRequest, waitFor: string): Promise<{ screen: string; answer: Promise<PermissionAnswer>; key: (k: string) => void }> {
  const agent = new FakeAgent(cwd)
  const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
  await settle()
  if (!agent.permissionAsker) throw new Error('the UI did not attach a permission asker')
  const answer = agent.permissionAsker(asked, new AbortController().signal)
  const screen = stripAnsi(await waitForFrame(ui, waitFor))
  return { screen, answer, key: (k) => ui.stdin.write(k) }
}

describe('the permission prompt shows what it asks about', () => {
  it('shows an edit as the diff against the file as it is now, before anything is approved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rein-prompt-'))
    writeFileSync(join(dir, 'a.txt'), 'one\ntwo\nthree\n')
    const { screen, answer, key } = await prompt(dir, request('edit', { file_path: 'a.txt', old_string: 'two', new_string: 'TWO' }), '+TWO')
    expect(screen).toContain('Permission needed: edit a.txt')
    expect(screen).toMatch(/│ -two\s*│\n│ \+TWO/)
    expect(screen).toContain('1. Allow once')
    // Letters never answer a prompt (docs/tui.md); Esc denies.
    key('\u001b')
    await expect(answer).resolves.toEqual({ outcome: 'deny' })
  })

  it('shows a long command whole, wrapped, with no escape sequence from it', async () => {
    const tail = 'END-OF-COMMAND'
    const command = `echo ${'abcdefghij '.repeat(30)}\x1b[2J && echo ${tail}`
    const { screen } = await prompt(process.cwd(), request('bash', { command }), tail)
    expect(screen).toContain('Permission needed: bash echo abcdefghij')
    expect(screen.replace(/[│\s]+/g, ' ')).toContain(`${'abcdefghij '.repeat(30).trim()} && echo ${tail}`)
    expect(screen).not.toContain('\x1b[2J')
  })
})
