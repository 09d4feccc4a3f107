import { describe, expect, it } from 'vitest'
import type { MockModel } from '../support/mock-model.js'
import { messagesOf, ReinRpc, userText } from '../context/cli-support.js'
import { eachTestInFixture, envFor, type FixtureWorkspace } from './support.js'

/** Custom commands through `rein rpc`: listed by `get_commands`, expanded when a prompt names one. */

let ws: FixtureWorkspace
let mock: MockModel
eachTestInFixture((w, m) => ((ws = w), (mock = m)))

describe('custom commands in RPC', () => {
  it('get_commands lists the custom commands, the shadowed ones and the skills', async () => {
    const rpc = new ReinRpc(['--cwd', ws.cwd], envFor(mock, ws))
    try {
      const answer = (await rpc.request({ type: 'get_commands' })) as { data?: Record<string, unknown> } & Record<string, unknown>
      const data = (answer.data ?? answer) as { commands: { name: string }[]; shadowed: { name: string }[]; skills: { name: string }[] }
      expect(data.commands.map((c) => c.name)).toEqual(['component', 'explain', 'fix-issue', 'greet', 'review', 'status'])
      expect(data.shadowed.map((c) => c.name)).toEqual(['model'])
      expect(data.skills.map((s) => s.name)).toEqual(['changelog', 'pdf-tools', 'release-notes', 'sql-style'])
    } finally {
      await rpc.close()
    }
  })

  it('a prompt naming a command, with quotes and a newline in its arguments, reaches the model expanded', async () => {
    mock.push({ text: 'ok' })
    const rpc = new ReinRpc(['--cwd', ws.cwd], envFor(mock, ws))
    try {
      await rpc.prompt('/fix-issue "12 3" urgent\nplease')
    } finally {
      await rpc.close()
    }
    const prompt = messagesOf(mock, 0).find((m) => m.role === 'user' && !userText(m).startsWith('<system-reminder>'))!
    expect(userText(prompt)).toBe(
      'Fix issue #12 3 with priority urgent. Read the issue text first, then write a failing test, then fix it.\n',
    )
  })
})
