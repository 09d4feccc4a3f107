import { describe, expect, it } from 'vitest'
import { Inbox } from '../../src/agent/inbox.js'
import { sessionHistory } from '../../src/checkpoints/rewind-history.js'
import { readSessionLog } from '../../src/session/load.js'
import { Session } from '../../src/session/session.js'
import { MemoryStore } from '../../src/store/memory-store.js'

const text = (t: string) => [{ type: 'text' as const, text: t }]

describe('the rewind history of a session', () => {
  it('a fork withdraws the prompts still queued at its point and keeps queued injected context', async () => {
    const store = new MemoryStore()
    const session = await Session.create(store, { cwd: '/w' })
    session.append('inbox/queued', { id: 'ctx', verb: 'inject', content: text('context'), source: { kind: 'workspace-context' } })
    session.append('inbox/queued', { id: 'p1', verb: 'followUp', content: text('the rewound prompt'), source: { kind: 'user' } })
    session.append('turn/start', { turn: 1 })
    const fork = await sessionHistory(store, session).fork(1)
    await fork.close()
    const { header, events } = await readSessionLog(store, fork.id)
    expect(header.parent).toEqual({ id: session.id, seq: 1 })
    expect(events.map((e) => e.type)).toEqual(['inbox/queued', 'inbox/queued', 'inbox/dequeued'])
    expect(Inbox.fromEvents(events).list().map((i) => i.id)).toEqual(['ctx'])
    expect(session.events).toHaveLength(3)
  })

  it('a fork before the first event is an empty session whose header names seq -1', async () => {
    const store = new MemoryStore()
    const session = await Session.create(store, { cwd: '/w' })
    session.append('turn/start', { turn: 1 })
    const fork = await sessionHistory(store, session).fork(null)
    await fork.close()
    const { header, events } = await readSessionLog(store, fork.id)
    expect(header.parent).toEqual({ id: session.id, seq: -1 })
    expect(events).toEqual([])
  })

  it('events() flushes the log and gives every event of it', async () => {
    const store = new MemoryStore()
    const session = await Session.create(store, { cwd: '/w' })
    session.append('turn/start', { turn: 1 })
    session.append('turn/end', { turn: 1, reason: 'completed' })
    const events = await sessionHistory(store, session).events()
    expect(events.map((e) => e.seq)).toEqual([0, 1])
    expect((await readSessionLog(store, session.id)).events).toHaveLength(2)
  })
})
