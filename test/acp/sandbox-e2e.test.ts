import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SessionUpdate } from '@agentclientprotocol/sdk'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { requireBwrap } from '../sandbox/bwrap-required.js'
import { CLIENT_INIT, startReinAcp, tempDir, until, type ReinAcp } from './support.js'

// `rein acp` with the sandbox on in the user's settings: the editor sees a sandboxed command's title say so, the
// mark and the sandbox's note in `_meta.rein.sandbox`, and `/sandbox` answers with the resolved policy.

const bwrap = requireBwrap()

let mock: MockModel
let rein: ReinAcp
let sessionId: string
let updates: SessionUpdate[]

beforeAll(async () => {
  mock = await startMockModel({
    script: [
      { toolCalls: [{ id: 'call_ok', name: 'bash', arguments: { command: 'echo inside' } }, { id: 'call_etc', name: 'bash', arguments: { command: 'touch /etc/rein-acp-probe' } }] },
      { text: 'Tried both.' },
    ],
  })
  const home = tempDir('rein-acp-sandbox-home-')
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ sandbox: { enabled: true, network: { allowedDomains: ['registry.npmjs.org'] } } }))
  rein = startReinAcp({ home, baseUrl: mock.url, cwd: home })
  await rein.connection.agent.request('initialize', CLIENT_INIT)
  const project = tempDir('rein-acp-sandbox-project-')
  sessionId = (await rein.connection.agent.request('session/new', { cwd: project, mcpServers: [] })).sessionId
  if (bwrap.available) {
    await rein.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'try' }] })
    updates = rein.updatesOf(sessionId)
  }
})

afterAll(async () => {
  if (rein && rein.child.exitCode === null) rein.child.kill('SIGKILL')
  await mock?.close()
})

const finished = (callId: string) =>
  updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === callId && (u.status === 'completed' || u.status === 'failed'))

describe.runIf(bwrap.available)('rein acp and the sandbox', () => {
  it('titles a sandboxed command "(sandboxed)" and marks it in _meta, with no permission asked', () => {
    expect(finished('call_ok')).toMatchObject({ title: '`echo inside` (sandboxed)', _meta: { rein: { sandbox: { sandboxed: true } } } })
    expect(rein.permissionRequests).toEqual([])
  })

  it('gives the editor the sandbox’s note of what it stopped', () => {
    const update = finished('call_etc') as { _meta?: { rein?: { sandbox?: { note?: string } } } }
    expect(update._meta?.rein?.sandbox?.note).toMatch(/^The sandbox kept \/etc\/rein-acp-probe read-only/)
    expect(existsSync('/etc/rein-acp-probe')).toBe(false)
  })

  it('answers /sandbox with the resolved policy and whether bubblewrap works', async () => {
    const before = rein.updatesOf(sessionId).length
    await rein.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/sandbox' }] })
    await until(() => rein.updatesOf(sessionId).length > before, 'the /sandbox reply')
    const reply = rein
      .updatesOf(sessionId)
      .slice(before)
      .map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : ''))
      .join('')
    expect(reply).toMatch(/^Sandbox: on \(sandbox.enabled in settings/)
    expect(reply).toContain('This machine: bubblewrap works')
    expect(reply).toContain("Network: only registry.npmjs.org, through Rein's proxy")
  })

  it('offers /sandbox among the editor’s commands', () => {
    const offered = rein.updatesOf(sessionId).find((u) => u.sessionUpdate === 'available_commands_update')
    expect(offered?.sessionUpdate === 'available_commands_update' && offered.availableCommands.map((c) => c.name)).toContain('sandbox')
  })
})
