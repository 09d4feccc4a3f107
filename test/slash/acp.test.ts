import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AvailableCommand } from '@agentclientprotocol/sdk'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { CLIENT_INIT, startReinAcp, until, type ReinAcp } from '../acp/support.js'
import { messagesOf, requireBuiltCli, userText } from '../context/cli-support.js'
import { fixtureWorkspace } from './support.js'
import { commandsFor } from '../../src/frontend/commands/catalog.js'

/** Custom commands through `rein acp`: offered in `available_commands_update`, expanded when a prompt names one. */

let ws: ReturnType<typeof fixtureWorkspace>
let mock: MockModel
let rein: ReinAcp

beforeAll(async () => {
  requireBuiltCli()
  ws = fixtureWorkspace()
  mock = await startMockModel()
  rein = startReinAcp({ home: ws.home, baseUrl: mock.url, cwd: ws.cwd })
  await rein.connection.agent.request('initialize', CLIENT_INIT)
})
afterAll(async () => {
  if (rein.child.exitCode === null) rein.child.kill('SIGKILL')
  await mock.close()
  rmSync(ws.base, { recursive: true, force: true })
})

describe('custom commands in ACP', () => {
  it('available_commands_update offers the custom commands beside the built-ins, never a shadowed one', async () => {
    const { sessionId } = await rein.connection.agent.request('session/new', { cwd: ws.cwd, mcpServers: [] })
    await until(() => rein.updatesOf(sessionId).some((u) => u.sessionUpdate === 'available_commands_update'), 'the command list')
    const update = rein.updatesOf(sessionId).find((u) => u.sessionUpdate === 'available_commands_update') as { availableCommands: AvailableCommand[] }
    const names = update.availableCommands.map((c) => c.name)
    expect(names).toEqual([...commandsFor('acp', ws.cwd).map((c) => c.name), 'component', 'explain', 'fix-issue', 'greet', 'review', 'status'])
    expect(update.availableCommands.find((c) => c.name === 'review')).toEqual({
      name: 'review',
      description: 'Review a file for bugs and style problems (project)',
      input: { hint: '[file] [focus]' },
    })
    expect(update.availableCommands.find((c) => c.name === 'component')!.description).toContain('(project:frontend)')
  })

  it('/skills answers with the workspace skills and the ones that could not be loaded, without asking the model', async () => {
    const { sessionId } = await rein.connection.agent.request('session/new', { cwd: ws.cwd, mcpServers: [] })
    const from = mock.requests.length
    const answer = await rein.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/skills' }] })
    expect(answer.stopReason).toBe('end_turn')
    expect(mock.requests.length).toBe(from)
    const text = rein
      .updatesOf(sessionId)
      .flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : []))
      .join('')
    expect(text).toMatch(/^changelog \(project, /m)
    expect(text).toMatch(/^sql-style \(project, /m)
    expect(text).toContain('Not loaded:')
    expect(text).toContain('broken-skill')
  })

  it('a prompt naming a custom command reaches the model as its expansion', async () => {
    mock.push({ text: 'Reviewed.' })
    const { sessionId } = await rein.connection.agent.request('session/new', { cwd: ws.cwd, mcpServers: [] })
    const from = mock.requests.length
    const answer = await rein.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/review src/app.ts "naming"' }] })
    expect(answer.stopReason).toBe('end_turn')
    const prompts = messagesOf(mock, from).filter((m) => m.role === 'user' && !userText(m).startsWith('<system-reminder>'))
    expect(userText(prompts[0])).toMatch(/^Review @src\/app\.ts with a focus on naming\./)
  })
})
