import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionUpdate } from '@agentclientprotocol/sdk'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { CLIENT_INIT, startReinAcp, tempDir, type ReinAcp } from './support.js'

let mock: MockModel | undefined
let rein: ReinAcp | undefined
afterEach(async () => {
  if (rein && rein.child.exitCode === null) rein.child.kill('SIGKILL')
  await mock?.close()
  rein = undefined
  mock = undefined
})

async function session(script: MockResponse[]): Promise<{ rein: ReinAcp; project: string; sessionId: string }> {
  mock = await startMockModel({ script })
  const home = tempDir('rein-acp-home-')
  const project = tempDir('rein-acp-project-')
  rein = startReinAcp({ home, baseUrl: mock.url, cwd: project })
  await rein.connection.agent.request('initialize', CLIENT_INIT)
  const { sessionId } = await rein.connection.agent.request('session/new', { cwd: project, mcpServers: [] })
  await rein.connection.agent.request('session/set_mode', { sessionId, modeId: 'bypass' })
  return { rein, project, sessionId }
}

function lastUpdateOf(updates: SessionUpdate[], callId: string): Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }> | undefined {
  const found = updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === callId)
  return found.at(-1) as Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }> | undefined
}

describe('what a step changed, in ACP', () => {
  it('a bash step’s last call is updated with a diff per changed file, old text read from the snapshot', async () => {
    const s = await session([
      { toolCalls: [{ id: 'call_sh', name: 'bash', arguments: { command: "sed -i 's/one/two/' a.txt; rm b.txt; echo new > c.txt" } }] },
      { text: 'Done.' },
    ])
    writeFileSync(join(s.project, 'a.txt'), 'one\n')
    writeFileSync(join(s.project, 'b.txt'), 'gone soon\n')
    const response = await s.rein.connection.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'change things' }] })
    expect(response.stopReason).toBe('end_turn')
    expect(readFileSync(join(s.project, 'a.txt'), 'utf8')).toBe('two\n')
    const update = lastUpdateOf(s.rein.updatesOf(s.sessionId), 'call_sh')
    const diffs = (update?.content ?? []).filter((c) => c.type === 'diff')
    expect(diffs).toEqual([
      { type: 'diff', path: join(s.project, 'a.txt'), oldText: 'one\n', newText: 'two\n' },
      { type: 'diff', path: join(s.project, 'b.txt'), oldText: 'gone soon\n', newText: '' },
      { type: 'diff', path: join(s.project, 'c.txt'), newText: 'new\n' },
    ])
    // The command's output stays with the diffs: an update's content replaces the call's.
    expect(update?.content?.[0]).toMatchObject({ type: 'content' })
  })

  it('a binary file is named in a text line instead of a diff', async () => {
    const s = await session([
      { toolCalls: [{ id: 'call_bin', name: 'bash', arguments: { command: "printf 'a\\000b' > blob.bin; echo hi > note.txt" } }] },
      { text: 'Done.' },
    ])
    await s.rein.connection.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'write a blob' }] })
    const content = lastUpdateOf(s.rein.updatesOf(s.sessionId), 'call_bin')?.content ?? []
    expect(content.filter((c) => c.type === 'diff')).toEqual([{ type: 'diff', path: join(s.project, 'note.txt'), newText: 'hi\n' }])
    expect(content.at(-1)).toEqual({ type: 'content', content: { type: 'text', text: 'Changed: blob.bin (added)' } })
  })
})
