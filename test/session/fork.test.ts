import { describe, expect, it } from 'vitest'
import { forkSession } from '../../src/session/fork.js'
import { Session } from '../../src/session/session.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import { appendTurn } from './conversation.js'

async function twoTurns(store: MemoryStore): Promise<Session> {
  const session = await Session.create(store, { cwd: '/repo' })
  appendTurn(session, 1, 'one')
  appendTurn(session, 2, 'two')
  await session.flush()
  return session
}

describe('forkSession', () => {
  it('copies the events up to a seq into a new session whose header names the parent', async () => {
    const store = new MemoryStore()
    const source = await twoTurns(store)
    const endOfFirst = source.events.findIndex((e) => e.type === 'turn/end')
    const fork = await forkSession(store, source.id, endOfFirst)
    expect(fork.id).not.toBe(source.id)
    expect(fork.header.parent).toEqual({ id: source.id, seq: endOfFirst })
    expect(fork.header.cwd).toBe('/repo')
    expect(fork.events).toEqual(source.events.slice(0, endOfFirst + 1))
    // The fork holds its writer lease until it is closed; only then may another Session open it for writing.
    await fork.close()
    const reloaded = await Session.load(store, fork.id)
    expect(reloaded.messages()).toEqual(fork.messages())
  })

  it('forks at the end of the last finished turn by default and leaves the source unchanged', async () => {
    const store = new MemoryStore()
    const source = await twoTurns(store)
    source.append('turn/start', { turn: 3 })
    await source.flush()
    const before = [...store.lines.get(source.id)!]
    const fork = await forkSession(store, source.id)
    expect(fork.length).toBe(source.length - 1)
    expect(store.lines.get(source.id)).toEqual(before)
  })

  it('refuses a seq inside a turn, saying where the turn starts and ends', async () => {
    const store = new MemoryStore()
    const source = await twoTurns(store)
    const start = source.events.findIndex((e) => e.type === 'turn/start' && e.data.turn === 2)
    const end = source.length - 1
    await expect(forkSession(store, source.id, start + 2)).rejects.toThrow(
      `cannot fork session ${source.id} at seq ${start + 2}: it is inside turn 2, which starts at seq ${start} and ends at seq ${end}; fork before seq ${start} or at the turn's end.`,
    )
    await expect(forkSession(store, source.id, 999)).rejects.toThrow(/its seqs run from 0 to/)
    expect(store.lines.size).toBe(1)
  })

  it('keeps a forked replace valid, since the fork holds the surface it refers to', async () => {
    const store = new MemoryStore()
    const source = await twoTurns(store)
    const surface = source.surface()
    source.append(
      'context/message',
      { id: 's', content: [{ type: 'text', text: 'summary' }], source: { kind: 'compaction' } },
      { surfaceOp: { op: 'replace', start: surface[0].seq, end: surface.at(-1)!.seq } },
    )
    await source.flush()
    const fork = await forkSession(store, source.id)
    expect(fork.messages()).toEqual([{ role: 'user', content: [{ type: 'text', text: 'summary' }] }])
  })
})
