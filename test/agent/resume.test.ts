import { describe, expect, it } from 'vitest'
import { Session } from '../../src/session/session.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import { harness } from '../support/agent-harness.js'
import { eventsOf } from '../support/events.js'

describe('resuming an agent over a stored session', () => {
  it('delivers a prompt that was queued but not delivered before the process ended, once, and logs the header as resume', async () => {
    const store = new MemoryStore()
    const before = await Session.create(store, { cwd: process.cwd() })
    // What a process leaves when it dies while a prompt waits behind a running turn: the queue entry, durable.
    before.append('inbox/queued', { id: 'q-1', verb: 'followUp', content: [{ type: 'text', text: 'queued before the crash' }], source: { kind: 'user' } })
    before.append('request/header', { reason: 'initial', config: { model: 'deepseek-v4-flash', effort: 'high' }, system: 'old', tools: [] })
    await before.close()

    const loaded = await Session.load(store, before.id)
    const h = await harness({ store, session: loaded, script: [{ text: 'answered' }], agent: { start: 'resume' } })
    expect((await h.agent.whenIdle())?.reason).toBe('completed')
    const users = eventsOf(loaded.events, 'user/message')
    expect(users.map((u) => [u.data.id, (u.data.content[0] as { text: string }).text])).toEqual([['q-1', 'queued before the crash']])
    expect(loaded.events.some((e) => e.type === 'inbox/dequeued' && e.data.id === 'q-1')).toBe(true)
    const headers = eventsOf(loaded.events, 'request/header')
    expect(headers.map((e) => e.data.reason)).toEqual(['initial', 'resume'])
    expect(h.agent.queued).toEqual([])
    await h.close()
  })

  it('does not deliver again a queued prompt whose message reached the log before its dequeue was written', async () => {
    const store = new MemoryStore()
    const before = await Session.create(store, { cwd: process.cwd() })
    before.append('inbox/queued', { id: 'q-2', verb: 'followUp', content: [{ type: 'text', text: 'already delivered' }], source: { kind: 'user' } })
    before.append('turn/start', { turn: 1 })
    before.append('step/start', { turn: 1, step: 1 })
    before.append('user/message', { id: 'q-2', content: [{ type: 'text', text: 'already delivered' }], source: { kind: 'user' } })
    await before.close()

    const loaded = await Session.load(store, before.id)
    const h = await harness({ store, session: loaded, script: [], agent: { start: 'resume' } })
    expect(h.agent.busy).toBe(false)
    expect(h.agent.queued).toEqual([])
    expect(h.mock.requests).toHaveLength(0)
    await h.close()
  })
})
