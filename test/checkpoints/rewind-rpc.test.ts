import { afterEach, describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, sandbox, spawnCli } from '../support/cli.js'
import { rpc } from '../support/rpc-client.js'
import { eventsOf } from '../support/events.js'
import { sessionLog, sessions } from './rewind-support.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

/** A `rein rpc --ask-permissions` whose first prompt rewrote a.txt, and the user edited a.txt afterwards. */
async function rpcAfterEdit() {
  const box = sandbox()
  writeFileSync(join(box.cwd, 'a.txt'), 'original\n')
  mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo agent > a.txt; echo new > b.txt' } }] }, { text: 'Done.' }] })
  const child = spawnCli(['rpc', '--ask-permissions', '--permission-mode', 'bypass'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
  const client = rpc(child)
  await client.send({ type: 'prompt', message: 'work' })
  await client.waitFor(client.idle(1))
  writeFileSync(join(box.cwd, 'a.txt'), 'user\n')
  return { box, child, client }
}

describe('the rpc rewind command', () => {
  it('asks about a conflict with a permission_request, keeps the file on deny, and continues in the fork', async () => {
    const { box, child, client } = await rpcAfterEdit()
    const source = (await client.send({ type: 'get_state' })).data as { sessionId: string }
    const answer = client.send({ type: 'rewind', turn: 1 })
    const asked = await client.waitFor((l) => l.type === 'permission_request')
    expect(asked.reason).toContain('a.txt')
    await client.send({ type: 'permission_response', requestId: asked.requestId, outcome: 'deny' })
    const response = await answer
    expect(response.ok, JSON.stringify(response)).toBe(true)
    const data = response.data as { outcome: string; sessionId: string; data: { fork: { id: string }; code: { kept: string[] } } }
    expect(data.outcome).toBe('rewound')
    expect(data.data.code.kept).toEqual(['a.txt'])
    expect(data.sessionId).toBe(data.data.fork.id)
    const state = (await client.send({ type: 'get_state' })).data as { sessionId: string }
    expect(state.sessionId).toBe(data.data.fork.id)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('user\n')
    await client.send({ type: 'shutdown' })
    await new Promise((resolve) => child.on('close', resolve))
    expect(eventsOf(sessionLog(box.home, source.sessionId), 'checkpoint/rewind')[0].data.kept).toEqual(['a.txt'])
  })

  it('undo: true undoes the rewind, and a bad turn is refused in one sentence', async () => {
    const { box, child, client } = await rpcAfterEdit()
    const bad = await client.send({ type: 'rewind', turn: 9 })
    expect(bad.ok).toBe(false)
    expect(bad.error).toMatch(/has no turn 9; its turns are 1 to 1\./)
    const invalid = await client.send({ type: 'rewind', turn: -1 })
    expect(invalid.ok).toBe(false)
    const done = await client.send({ type: 'rewind', turn: 1, code: true, conversation: false, conflicts: 'overwrite' })
    expect(done.ok, JSON.stringify(done)).toBe(true)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('original\n')
    const undone = await client.send({ type: 'rewind', undo: true, conflicts: 'overwrite' })
    expect((undone.data as { outcome: string }).outcome).toBe('rewound')
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('user\n')
    expect(readFileSync(join(box.cwd, 'b.txt'), 'utf8')).toBe('new\n')
    await client.send({ type: 'shutdown' })
    await new Promise((resolve) => child.on('close', resolve))
    expect(sessions(box.home)).toHaveLength(1)
  })
})
