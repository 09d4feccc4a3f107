import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { realServices } from '../../src/cli/tui/real-services.js'
import { forkSession } from '../../src/session/fork.js'
import { Session } from '../../src/session/session.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { appendTurn } from '../session/conversation.js'

let home: string
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rein-pickers-'))
})
afterEach(async () => {
  await rm(home, { recursive: true, force: true })
})

describe('the /resume listing', () => {
  it('names a fork after the session it came from and leaves subagent sessions out', async () => {
    const store = new JsonlStore(home)
    const main = await Session.create(store, { cwd: '/repo' })
    appendTurn(main, 1, 'make the build green')
    await main.close()
    const child = await Session.create(store, { cwd: '/repo', subagent: { parent: main.id, callId: 'c1', agent: 'explore' } })
    appendTurn(child, 1, 'find the failing test')
    await child.close()
    const fork = await forkSession(store, main.id)
    await fork.close()

    const listed = await realServices({ home, settings: {} }).listSessions('/repo')
    expect(listed.map((s) => s.id).sort()).toEqual([main.id, fork.id].sort())
    expect(listed.find((s) => s.id === fork.id)?.forkOf).toBe('make the build green')
    expect(listed.find((s) => s.id === main.id)?.forkOf).toBeUndefined()
  })
})
