import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Session } from '../../src/session/session.js'
import { cwdKey, reinHome } from '../../src/store/home.js'
import { listSessions, resolveSessionId } from '../../src/store/listing.js'
import { INDEX_FILE } from '../../src/store/summary-index.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import { type SessionStore } from '../../src/store/store.js'
import { appendTurn } from '../session/conversation.js'

let home: string
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rein-list-'))
})
afterEach(async () => {
  await rm(home, { recursive: true, force: true })
})

async function sessionWith(store: SessionStore, cwd: string, prompts: string[], id?: string): Promise<Session> {
  const session = await Session.create(store, { cwd, ...(id ? { id } : {}) })
  prompts.forEach((prompt, i) => appendTurn(session, i + 1, prompt))
  await session.close()
  return session
}

describe('reinHome and cwdKey', () => {
  it('uses $REIN_HOME when set and ~/.rein otherwise', () => {
    expect(reinHome({ REIN_HOME: '/tmp/x' })).toBe('/tmp/x')
    expect(reinHome({ HOME: '/home/u' })).toMatch(/\/\.rein$/)
  })

  it('turns a path into a readable, safe, distinct directory name', () => {
    expect(cwdKey('/work/main')).toMatch(/^work-main-[0-9a-f]{8}$/)
    expect(cwdKey('/a/b')).not.toBe(cwdKey('/a-b'))
    expect(cwdKey('/')).toMatch(/^[0-9a-f]{8}$/)
  })
})

describe.each([
  ['the JSONL store', () => new JsonlStore(home)],
  ['the memory store', () => new MemoryStore()],
])('listing sessions in %s', (_name, makeStore) => {
  it('lists the sessions of one directory with title, times, turns and size, newest first', async () => {
    const store = makeStore()
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
    const store = makeStore()
    const session = await Session.create(store, { cwd: '/repo' })
    appendTurn(session, 1, 'first words')
    session.append('session/title', { title: 'Parser fixes' })
    await session.close()
    expect((await listSessions(store, '/repo'))[0].title).toBe('Parser fixes')
  })

  it('resolves a unique prefix, and refuses an unknown or ambiguous one in one sentence', async () => {
    const store = makeStore()
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
    const store = makeStore()
    await sessionWith(store, '/repo', ['a'], 'abc111')
    await sessionWith(store, '/other', ['b'], 'abc222')
    expect(await resolveSessionId(store, 'abc', '/other')).toBe('abc222')
  })
})

describe('the listing index', () => {
  it('is written on the first listing and brought up to date by scanning only what a session appended', async () => {
    const store = new JsonlStore(home)
    const session = await sessionWith(store, '/repo', ['one'])
    expect((await listSessions(store, '/repo'))[0].turns).toBe(1)
    const indexPath = join(dirname(session.path!), INDEX_FILE)
    const index = JSON.parse(await readFile(indexPath, 'utf8'))
    expect(index.files[session.id].scannedTo).toBe((await readFile(session.path!)).length)

    const again = await Session.load(store, session.id)
    appendTurn(again, 2, 'two')
    await again.close()
    const [summary] = await listSessions(new JsonlStore(home), '/repo')
    expect(summary.turns).toBe(2)
    expect(summary.title).toBe('one')
  })

  it('is rebuilt when it is damaged, since the session files are the truth', async () => {
    const store = new JsonlStore(home)
    const session = await sessionWith(store, '/repo', ['one', 'two', 'three'])
    await listSessions(store, '/repo')
    await appendFile(join(dirname(session.path!), INDEX_FILE), 'garbage')
    expect((await listSessions(store, '/repo'))[0].turns).toBe(3)
  })

  it('lists a session whose torn last line is ignored', async () => {
    const store = new JsonlStore(home)
    const session = await sessionWith(store, '/repo', ['one'])
    await appendFile(session.path!, '{"seq":99,"time":1,"type":"turn/st')
    const [summary] = await listSessions(new JsonlStore(home), '/repo')
    expect(summary.turns).toBe(1)
  })

  it('lists nothing for a directory without sessions and for a home that does not exist yet', async () => {
    expect(await listSessions(new JsonlStore(home), '/nowhere')).toEqual([])
    expect(await listSessions(new JsonlStore(join(home, 'missing')), 'all')).toEqual([])
  })
})
