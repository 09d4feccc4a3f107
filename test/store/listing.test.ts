import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Session } from '../../src/session/session.js'
import { cwdKey, reinHome } from '../../src/store/home.js'
import { listSessions } from '../../src/store/listing.js'
import { INDEX_FILE } from '../../src/store/summary-index.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import type { SessionStore } from '../../src/store/store.js'
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
