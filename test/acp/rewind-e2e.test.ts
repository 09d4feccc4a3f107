import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionUpdate } from '@agentclientprotocol/sdk'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { CLIENT_INIT, startReinAcp, tempDir, until, type ReinAcp } from './support.js'

let mock: MockModel | undefined
let rein: ReinAcp | undefined
afterEach(async () => {
  if (rein && rein.child.exitCode === null) rein.child.kill('SIGKILL')
  await mock?.close()
  rein = undefined
  mock = undefined
})

/** A session whose first turn rewrote a.txt with bash. */
async function changedSession(extra: MockResponse[] = []) {
  mock = await startMockModel({
    script: [{ toolCalls: [{ id: 'call_sh', name: 'bash', arguments: { command: 'echo agent > a.txt' } }] }, { text: 'Done.' }, ...extra],
  })
  const home = tempDir('rein-acp-home-')
  const project = tempDir('rein-acp-project-')
  writeFileSync(join(project, 'a.txt'), 'mine\n')
  rein = startReinAcp({ home, baseUrl: mock.url, cwd: project })
  await rein.connection.agent.request('initialize', CLIENT_INIT)
  const { sessionId } = await rein.connection.agent.request('session/new', { cwd: project, mcpServers: [] })
  await rein.connection.agent.request('session/set_mode', { sessionId, modeId: 'bypass' })
  const s = { rein, project, sessionId }
  await say(s, 'rewrite a.txt')
  expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('agent\n')
  return s
}

type Session = { rein: ReinAcp; sessionId: string; project: string }

function say(s: Session, text: string) {
  return s.rein.connection.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text }] })
}

/** The agent's reply to one slash command: the message chunks sent while it ran. */
async function command(s: Session, text: string): Promise<string> {
  const before = s.rein.updatesOf(s.sessionId).length
  const response = await say(s, text)
  expect(response.stopReason).toBe('end_turn')
  return s.rein
    .updatesOf(s.sessionId)
    .slice(before)
    .map((u: SessionUpdate) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : ''))
    .join('')
}

describe('/rewind over ACP', () => {
  it('is offered in the command list, and alone lists the turns with what each changed', async () => {
    const s = await changedSession()
    const offered = s.rein.updatesOf(s.sessionId).find((u) => u.sessionUpdate === 'available_commands_update')
    expect(offered?.sessionUpdate === 'available_commands_update' && offered.availableCommands.map((c) => c.name)).toContain('rewind')
    expect(await command(s, '/rewind')).toContain('turn 1: rewrite a.txt — 1 file changed: a.txt (modified)')
  })

  it('/rewind 1 code restores the file in place, and /rewind undo brings the agent’s version back', async () => {
    const s = await changedSession()
    const done = await command(s, '/rewind 1 code')
    expect(done).toContain('Restored the files as they were at the start of turn 1')
    expect(readFileSync(join(s.project, 'a.txt'), 'utf8')).toBe('mine\n')
    expect(await command(s, '/rewind undo')).toContain('Undid the rewind to turn 1')
    expect(readFileSync(join(s.project, 'a.txt'), 'utf8')).toBe('agent\n')
  })

  it('a conversation rewind names the fork to open, and this session stays usable', async () => {
    const s = await changedSession([{ text: 'Still here.' }])
    const done = await command(s, '/rewind 1 conversation')
    const fork = /open session (\S+) from your editor's session list/.exec(done)?.[1]
    expect(fork).toMatch(/^[0-9a-f-]{36}$/)
    expect(fork).not.toBe(s.sessionId)
    const listed = await s.rein.connection.agent.request('session/list', {})
    expect(listed.sessions.map((x) => x.sessionId)).toContain(fork)
    expect((await say(s, 'are you there?')).stopReason).toBe('end_turn')
  })

  it('asks the editor before overwriting a file the user changed after the agent, and keeps it when refused', async () => {
    const s = await changedSession()
    writeFileSync(join(s.project, 'a.txt'), 'edited by hand\n')
    s.rein.permissionChoices.push('reject-once')
    const done = await command(s, '/rewind 1 code')
    expect(s.rein.permissionRequests).toHaveLength(1)
    expect(s.rein.permissionRequests[0].toolCall.title).toContain('changed since Rein last wrote it: a.txt')
    expect(s.rein.permissionRequests[0].options.map((o) => o.name)).toEqual(['Overwrite them', 'Keep them as they are'])
    expect(done).toContain('Kept as they are: a.txt')
    expect(readFileSync(join(s.project, 'a.txt'), 'utf8')).toBe('edited by hand\n')
  })

  it('answers /rewind while a turn runs with one sentence, and the turn goes on', async () => {
    const s = await changedSession([{ toolCalls: [{ id: 'call_sleep', name: 'bash', arguments: { command: 'sleep 2' } }] }, { text: 'Slept.' }])
    const running = say(s, 'sleep a while')
    await until(() => s.rein.updatesOf(s.sessionId).some((u) => u.sessionUpdate === 'tool_call' && u.toolCallId === 'call_sleep'), 'the sleep call')
    expect(await command(s, '/rewind 1')).toBe('A turn is running; /rewind works once it has ended (cancel it first).')
    expect((await running).stopReason).toBe('end_turn')
    expect(readFileSync(join(s.project, 'a.txt'), 'utf8')).toBe('agent\n')
  })

  it('answers a word that is not a turn and a turn out of range in one sentence each, changing nothing', async () => {
    const s = await changedSession()
    expect(await command(s, '/rewind soon')).toBe(
      '"soon" is not a turn number; /rewind alone lists the turns; /rewind <turn> [code|conversation] goes back to one; /rewind undo undoes the last rewind.',
    )
    expect(await command(s, '/rewind 7')).toMatch(/has no turn 7; its turns are 1 to 1\.$/)
    expect(readFileSync(join(s.project, 'a.txt'), 'utf8')).toBe('agent\n')
  })
})
