import { appendFile, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { forkSession } from '../../src/session/fork.js'
import { readSessionLog } from '../../src/session/load.js'
import { Session } from '../../src/session/session.js'
import { listSessions, resolveSessionId } from '../../src/store/listing.js'
import { PostgresStore } from '../../src/store/postgres/store.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import type { SessionStore } from '../../src/store/store.js'
import { appendTurn } from '../session/conversation.js'
import { freshDatabase, onDatabase, postgresUrl } from '../support/postgres-db.js'

/**
 * One contract for every SessionStore: the same behaviours, run against the memory, JSONL and PostgreSQL stores.
 * Some damage only one kind of store can suffer (a torn last line needs a line-oriented store; a takeover needs a
 * lease another process can take); a fixture offers those as capabilities and the tests that need them run only
 * where they exist.
 */
interface StoreFixture {
  name: string
  make(): Promise<SessionStore>
  /** Leaves half a record after the last complete one, as a crash mid-write would. */
  tearTail?(store: SessionStore, id: string): Promise<void>
  /** Makes the next writes fail at the store; the returned function heals it. */
  breakWrites?(store: SessionStore): Promise<() => Promise<void>>
  /** Another process (on another machine) takes the session's lease over, as after a stale-lease takeover. */
  takeOver?(store: SessionStore, id: string): Promise<void>
}

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const memory: StoreFixture = {
  name: 'the memory store',
  make: async () => new MemoryStore(),
  tearTail: async (store, id) => {
    ;(store as MemoryStore).lines.get(id)!.push('{"seq":99,"time":1,"type":"turn/st')
  },
  breakWrites: async (store) => {
    ;(store as MemoryStore).failWrite = { after: 1, error: new Error('the device is gone') }
    return async () => {
      ;(store as MemoryStore).failWrite = undefined
    }
  },
}

const jsonl: StoreFixture = {
  name: 'the JSONL store',
  make: async () => {
    const home = await mkdtemp(join(tmpdir(), 'rein-contract-'))
    cleanups.push(() => rm(home, { recursive: true, force: true }))
    return new JsonlStore(home)
  },
  tearTail: async (store, id) => appendFile(await store.location(id), '{"seq":99,"time":1,"type":"turn/st'),
  takeOver: async (store, id) => {
    const lock = `${await store.location(id)}.lock`
    await unlink(lock)
    await writeFile(lock, JSON.stringify({ pid: 1, host: 'elsewhere', startedAt: Date.now() }))
  },
}

const postgres: StoreFixture = {
  name: 'the PostgreSQL store',
  make: async () => {
    const store = new PostgresStore(await freshDatabase())
    cleanups.push(() => store.close())
    return store
  },
  breakWrites: async (store) => {
    const url = (store as PostgresStore).url
    await onDatabase(url, (db) => db.query('ALTER TABLE rein_events ADD CONSTRAINT refuse_all CHECK (seq < 0) NOT VALID'))
    return async () => {
      await onDatabase(url, (db) => db.query('ALTER TABLE rein_events DROP CONSTRAINT refuse_all'))
    }
  },
  takeOver: async (store, id) => {
    await onDatabase((store as PostgresStore).url, (db) =>
      db.query(`UPDATE rein_leases SET token = gen_random_uuid(), owner = '{"pid":1,"host":"elsewhere","startedAt":0}' WHERE session_id = $1`, [id]),
    )
  },
}

const fixtures = postgresUrl ? [memory, jsonl, postgres] : [memory, jsonl]

async function sessionWith(store: SessionStore, cwd: string, prompts: string[], id?: string): Promise<Session> {
  const session = await Session.create(store, { cwd, ...(id ? { id } : {}) })
  prompts.forEach((prompt, i) => appendTurn(session, i + 1, prompt))
  await session.close()
  return session
}

async function records(store: SessionStore, id: string): Promise<unknown[]> {
  const seen: unknown[] = []
  await store.read(id, (value) => seen.push(value))
  return seen
}

describe.each(fixtures)('the store contract: $name', (fixture) => {
  describe('append and load', () => {
    it('reads back the header and every event in order after the writer closes', async () => {
      const store = await fixture.make()
      const session = await sessionWith(store, '/repo', ['one', 'two'])
      const log = await readSessionLog(store, session.id)
      expect(log.header).toEqual(session.header)
      expect(log.events).toEqual(session.events)
      expect(log.end.records).toBe(session.events.length + 1)
    })

    it('keeps every record byte for byte, key order included', async () => {
      const store = await fixture.make()
      const session = await Session.create(store, { cwd: '/repo' })
      session.append('session/title', { title: 'zeta \u00e9 "quoted" \\ back' })
      appendTurn(session, 1, 'unicode ✓ and emoji 🚀')
      await session.close()
      const lines: string[] = []
      await store.read(session.id, (value) => lines.push(JSON.stringify(value)))
      expect(lines.slice(1)).toEqual(session.events.map((event) => JSON.stringify(event)))
    })

    it('continues a reopened session after its last event, with the next seq', async () => {
      const store = await fixture.make()
      const first = await sessionWith(store, '/repo', ['one'])
      const again = await Session.load(store, first.id)
      expect(again.length).toBe(first.length)
      appendTurn(again, 2, 'two')
      await again.close()
      const log = await readSessionLog(store, first.id)
      expect(log.events.map((event) => event.seq)).toEqual(log.events.map((_, i) => i))
      expect(log.events.filter((event) => event.type === 'turn/start')).toHaveLength(2)
    })

    it('refuses to create a session whose id exists, and leaves the existing one as it was', async () => {
      const store = await fixture.make()
      const first = await sessionWith(store, '/repo', ['one'], 'fixed-id')
      await expect(Session.create(store, { cwd: '/repo', id: 'fixed-id' })).rejects.toThrow(/already exists.*use a new id\.$/)
      expect((await readSessionLog(store, 'fixed-id')).events).toHaveLength(first.length)
    })

    it('answers an unknown id with one sentence naming it and what to do', async () => {
      const store = await fixture.make()
      await expect(Session.load(store, 'no-such-session')).rejects.toThrow(/^no session no-such-session in .*; (run|check) .*\.$/)
      await expect(store.read('no-such-session', () => {})).rejects.toThrow(/no session no-such-session/)
    })
  })

  describe('listing', () => {
    it('lists the sessions of one directory with title, times, turns and size, newest first', async () => {
      const store = await fixture.make()
      const older = await sessionWith(store, '/repo', ['fix the flaky test in the parser module please right now', 'again'])
      await new Promise((r) => setTimeout(r, 5))
      const newer = await sessionWith(store, '/repo', ['add a readme'])
      await sessionWith(store, '/elsewhere', ['other'])
      const listed = await listSessions(store, '/repo')
      expect(listed.map((s) => s.id)).toEqual([newer.id, older.id])
      expect(listed[1]).toMatchObject({
        cwd: '/repo',
        title: 'fix the flaky test in the parser module…',
        turns: 2,
        createdAt: older.header.createdAt,
        updatedAt: older.events.at(-1)!.time,
      })
      expect(listed[1].bytes).toBeGreaterThan(1000)
      expect(await listSessions(store, 'all')).toHaveLength(3)
    })

    it('prefers the latest session/title event over the first prompt', async () => {
      const store = await fixture.make()
      const session = await Session.create(store, { cwd: '/repo' })
      appendTurn(session, 1, 'first words')
      session.append('session/title', { title: 'Parser fixes' })
      await session.close()
      expect((await listSessions(store, '/repo'))[0].title).toBe('Parser fixes')
    })

    it('resolves a unique prefix, and refuses an unknown or ambiguous one in one sentence', async () => {
      const store = await fixture.make()
      await sessionWith(store, '/repo', ['a'], 'abc111')
      await sessionWith(store, '/repo', ['b'], 'abc222')
      await sessionWith(store, '/other', ['c'], 'abd333')
      expect(await resolveSessionId(store, 'abc1')).toBe('abc111')
      expect(await resolveSessionId(store, 'abd')).toBe('abd333')
      await expect(resolveSessionId(store, 'abc')).rejects.toThrow('"abc" matches 2 sessions (abc111, abc222); type more of the id.')
      await expect(resolveSessionId(store, 'zz')).rejects.toThrow(
        'no session id starts with "zz"; run `rein sessions list --all` to see the ids.',
      )
    })

    it('picks the match in the current directory when a prefix matches there exactly once', async () => {
      const store = await fixture.make()
      await sessionWith(store, '/repo', ['a'], 'abc111')
      await sessionWith(store, '/other', ['b'], 'abc222')
      expect(await resolveSessionId(store, 'abc', '/other')).toBe('abc222')
    })

    it('lists nothing for a directory without sessions', async () => {
      const store = await fixture.make()
      expect(await listSessions(store, '/nowhere')).toEqual([])
    })
  })

  describe('fork and repair', () => {
    it('forks a copy up to a seq into a new session naming its parent, leaving the source untouched', async () => {
      const store = await fixture.make()
      const source = await sessionWith(store, '/repo', ['one', 'two'])
      const firstTurnEnd = source.events.findIndex((event) => event.type === 'turn/end')
      const fork = await forkSession(store, source.id, firstTurnEnd)
      await fork.close()
      const copy = await readSessionLog(store, fork.id)
      expect(copy.header.parent).toEqual({ id: source.id, seq: firstTurnEnd })
      expect(copy.events).toEqual(source.events.slice(0, firstTurnEnd + 1))
      expect((await readSessionLog(store, source.id)).events).toHaveLength(source.length)
      expect((await listSessions(store, '/repo')).find((s) => s.id === fork.id)?.parent).toEqual({ id: source.id, seq: firstTurnEnd })
    })

    it('closes a turn a crash left open as interrupted when the session is next loaded', async () => {
      const store = await fixture.make()
      const session = await Session.create(store, { cwd: '/repo' })
      session.append('turn/start', { turn: 1 })
      session.append('step/start', { turn: 1, step: 1 })
      session.append('user/message', { id: 'u1', content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } })
      await session.close()
      const loaded = await Session.load(store, session.id)
      await loaded.close()
      expect(loaded.repair.appended.map((event) => event.type)).toEqual(['step/end', 'turn/end'])
      const log = await readSessionLog(store, session.id)
      expect(log.events.at(-1)).toMatchObject({ type: 'turn/end', data: { turn: 1, reason: 'interrupted' } })
    })
  })

  describe('the writer lease', () => {
    it('refuses a second writer while the first holds the session, naming rein --fork, and admits one after close', async () => {
      const store = await fixture.make()
      const session = await sessionWith(store, '/repo', ['one'])
      const holder = await Session.load(store, session.id)
      await expect(Session.load(store, session.id)).rejects.toThrow(
        new RegExp(`^Session ${session.id} is open for writing by .*rein --fork ${session.id}\\.$`),
      )
      await holder.close()
      const next = await Session.load(store, session.id)
      await next.close()
    })

    it('gives the lease to exactly one of many writers that ask at once', async () => {
      const store = await fixture.make()
      const session = await sessionWith(store, '/repo', ['one'])
      const attempts = await Promise.allSettled(Array.from({ length: 6 }, () => Session.load(store, session.id)))
      const won = attempts.filter((a): a is PromiseFulfilledResult<Session> => a.status === 'fulfilled')
      expect(won).toHaveLength(1)
      for (const lost of attempts.filter((a) => a.status === 'rejected')) {
        expect(String((lost as PromiseRejectedResult).reason)).toMatch(/is open for writing/)
      }
      await won[0].value.close()
    })

    it('tells a reader whether a session is held for writing, without taking the lease', async () => {
      const store = await fixture.make()
      const session = await sessionWith(store, '/repo', ['one'])
      expect(await store.isLeased?.(session.id)).toBe(false)
      const holder = await Session.load(store, session.id)
      expect(await store.isLeased?.(session.id)).toBe(true)
      expect(await store.isLeased?.(session.id)).toBe(true)
      await holder.close()
      expect(await store.isLeased?.(session.id)).toBe(false)
      await expect(store.isLeased?.('no-such-session')).rejects.toThrow(/no session no-such-session/)
    })

    it('lets a reader read a session while a writer holds it', async () => {
      const store = await fixture.make()
      const session = await sessionWith(store, '/repo', ['one'])
      const holder = await Session.load(store, session.id)
      expect((await readSessionLog(store, session.id)).events).toHaveLength(session.length)
      await holder.close()
    })

    if (fixture.takeOver) {
      const takeOver = fixture.takeOver
      it('a holder whose lease was taken over writes nothing more and says so in one sentence', async () => {
        const store = await fixture.make()
        const session = await Session.create(store, { cwd: '/repo' })
        await takeOver(store, session.id)
        session.append('session/title', { title: 'after the takeover' })
        await expect(session.flush()).rejects.toThrow(
          `Rein could not write the session log (another process took over the session); only its header is saved; fix that and run rein --resume ${session.id}.`,
        )
        await session.close()
        expect(await records(store, session.id)).toHaveLength(1)
      })
    }
  })

  describe('remove', () => {
    it('deletes a closed session: it is no longer read, listed or resolved, and its neighbour is untouched', async () => {
      const store = await fixture.make()
      const gone = await sessionWith(store, '/repo', ['one', 'two'])
      const kept = await sessionWith(store, '/repo', ['three'])
      await store.remove(gone.id)
      await expect(readSessionLog(store, gone.id)).rejects.toMatchObject({ code: 'not-found' })
      await expect(store.isLeased?.(gone.id)).rejects.toMatchObject({ code: 'not-found' })
      expect((await listSessions(store, 'all')).map((s) => s.id)).toEqual([kept.id])
      expect((await store.ids()).map((stored) => stored.id)).toEqual([kept.id])
      expect((await readSessionLog(store, kept.id)).events).toEqual(kept.events)
    })

    it('leaves nothing of a removed session behind: its id starts afresh', async () => {
      const store = await fixture.make()
      await sessionWith(store, '/repo', ['one', 'two'], 'reused-id')
      await store.remove('reused-id')
      const again = await sessionWith(store, '/repo', ['only this'], 'reused-id')
      expect((await readSessionLog(store, 'reused-id')).events).toEqual(again.events)
      expect((await listSessions(store, '/repo'))[0]).toMatchObject({ id: 'reused-id', title: 'only this', turns: 1 })
    })

    it('keeps a fork whole when the session it was forked from is removed', async () => {
      const store = await fixture.make()
      const source = await sessionWith(store, '/repo', ['one', 'two'])
      const fork = await forkSession(store, source.id, source.length - 1)
      await fork.close()
      await store.remove(source.id)
      expect((await readSessionLog(store, fork.id)).events).toEqual(source.events)
    })

    it('refuses a session whose writer lease is held, and keeps it whole and writable', async () => {
      const store = await fixture.make()
      const open = await Session.create(store, { cwd: '/repo' })
      appendTurn(open, 1, 'still going')
      await open.flush()
      await expect(store.remove(open.id)).rejects.toMatchObject({ code: 'busy' })
      await expect(store.remove(open.id)).rejects.toThrow(/^Session .* is open for writing by .*\.$/)
      appendTurn(open, 2, 'and on')
      await open.close()
      expect((await readSessionLog(store, open.id)).events).toEqual(open.events)
    })

    if (fixture.takeOver) {
      const takeOver = fixture.takeOver
      it('refuses a session another machine holds', async () => {
        const store = await fixture.make()
        const session = await Session.create(store, { cwd: '/repo' })
        await takeOver(store, session.id)
        await expect(store.remove(session.id)).rejects.toMatchObject({ code: 'busy' })
        await session.close().catch(() => {})
        expect(await records(store, session.id)).toHaveLength(1)
      })
    }

    it('answers an unknown id with not-found', async () => {
      const store = await fixture.make()
      await expect(store.remove('no-such-session')).rejects.toMatchObject({ code: 'not-found' })
    })
  })

  describe('many sessions at once', () => {
    it('keeps the events of sessions written concurrently apart and in order', async () => {
      const store = await fixture.make()
      const sessions = await Promise.all(Array.from({ length: 8 }, () => Session.create(store, { cwd: '/busy' })))
      for (let turn = 1; turn <= 3; turn++) {
        for (const session of sessions) appendTurn(session, turn, `turn ${turn} of ${session.id}`)
        await Promise.all(sessions.map((session) => session.flush()))
      }
      await Promise.all(sessions.map((session) => session.close()))
      for (const session of sessions) {
        const log = await readSessionLog(store, session.id)
        expect(log.events).toEqual(session.events)
      }
      expect((await listSessions(store, '/busy')).every((summary) => summary.turns === 3)).toBe(true)
    })
  })

  describe('torn and failed writes', () => {
    if (fixture.tearTail) {
      const tearTail = fixture.tearTail
      it('drops a torn last record on load, reports it, and appends after the last complete one', async () => {
        const store = await fixture.make()
        const session = await sessionWith(store, '/repo', ['one'])
        await tearTail(store, session.id)
        const loaded = await Session.load(store, session.id)
        expect(loaded.repair.tornLine).toBe(session.length + 2)
        appendTurn(loaded, 2, 'two')
        await loaded.close()
        const log = await readSessionLog(store, session.id)
        expect(log.end.torn).toBeUndefined()
        expect(log.events.filter((event) => event.type === 'turn/end')).toHaveLength(2)
      })
    }

    if (fixture.breakWrites) {
      const breakWrites = fixture.breakWrites
      it('a write the store refuses writes nothing, and the session loads with everything saved before it', async () => {
        const store = await fixture.make()
        const session = await Session.create(store, { cwd: '/repo' })
        appendTurn(session, 1, 'saved')
        await session.flush()
        const saved = session.length
        const heal = await breakWrites(store)
        appendTurn(session, 2, 'lost')
        await expect(session.flush()).rejects.toThrow(`everything up to event ${saved - 1} is saved`)
        await session.close().catch(() => {})
        await heal()
        const loaded = await Session.load(store, session.id)
        expect(loaded.length).toBe(saved)
        await loaded.close()
      })
    }
  })
})
