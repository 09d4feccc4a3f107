import { existsSync, readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { raw, startWeb, trusted, type WebRun } from './support.js'
import { sandbox } from '../support/cli.js'
import { Session } from '../../src/session/session.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'

let run: WebRun | undefined
afterEach(async () => {
  await run?.stop()
  run = undefined
})

interface Row {
  id: string
  title: string
  archived?: true
}

/** A served workspace holding one stored session with a prompt; the session and its log file. */
async function served(script: Parameters<typeof startWeb>[0] = {}): Promise<{ run: WebRun; id: string; file: string }> {
  const box = sandbox()
  const store = new JsonlStore(box.home)
  const session = await Session.create(store, { cwd: box.cwd })
  session.append('user/message', { id: 'u1', content: [{ type: 'text', text: 'Tidy the notes' }], source: { kind: 'user' } })
  await session.close()
  run = await startWeb({ box, ...script })
  return { run, id: session.id, file: await store.location(session.id) }
}

const post = (r: WebRun, path: string, body: unknown, headers = trusted(r)) =>
  raw(r.origin, path, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) })
const remove = (r: WebRun, id: string, headers = trusted(r)) => raw(r.origin, `/api/sessions/${id}`, { method: 'DELETE', headers })
const rows = async (r: WebRun): Promise<Row[]> => (await raw(r.origin, '/api/sessions', { headers: trusted(r) })).json().sessions as Row[]

describe('renaming, archiving and deleting sessions from rein web', () => {
  it('renames a session with a logged session/title that the listing shows; refuses an oversized, empty or control-character title', async () => {
    const s = await served()
    expect((await rows(s.run))[0].title).toBe('Tidy the notes')
    const renamed = await post(s.run, `/api/sessions/${s.id}/title`, { title: '  Notes, tidied  ' })
    expect(renamed.status).toBe(200)
    expect((await rows(s.run))[0].title).toBe('Notes, tidied')
    const log = readFileSync(s.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type?: string; data?: unknown })
    expect(log.filter((e) => e.type === 'session/title').map((e) => e.data)).toEqual([{ title: 'Notes, tidied' }])

    const huge = await post(s.run, `/api/sessions/${s.id}/title`, { title: 'x'.repeat(100_000) })
    expect(huge.status).toBe(413)
    expect(huge.json().error).toMatch(/^Refused: a title or archive request may be at most 16 KB\.$/)
    const long = await post(s.run, `/api/sessions/${s.id}/title`, { title: 'x'.repeat(201) })
    expect(long.status).toBe(400)
    expect(long.json().error).toMatch(/title is over 200 characters/)
    const bell = await post(s.run, `/api/sessions/${s.id}/title`, { title: 'ring\u0007the\nbell' })
    expect(bell.status).toBe(400)
    expect(bell.json().error).toMatch(/title holds a control character/)
    const empty = await post(s.run, `/api/sessions/${s.id}/title`, { title: '   ' })
    expect(empty.status).toBe(400)
    expect((await rows(s.run))[0].title).toBe('Notes, tidied')
  })

  it('archives and brings back a session (a flag on its row), and refuses a body that is not a yes or no', async () => {
    const s = await served()
    expect((await post(s.run, `/api/sessions/${s.id}/archive`, { archived: true })).status).toBe(200)
    expect((await rows(s.run))[0].archived).toBe(true)
    expect(existsSync(s.file)).toBe(true)
    expect((await post(s.run, `/api/sessions/${s.id}/archive`, { archived: false })).status).toBe(200)
    expect((await rows(s.run))[0].archived).toBeUndefined()
    const bad = await post(s.run, `/api/sessions/${s.id}/archive`, { archived: 'yes' })
    expect(bad.status).toBe(400)
    expect(bad.json().error).toMatch(/^Invalid request: archived /)
  })

  it('deletes a stored session through the store, and refuses an unknown id, a traversal, another workspace, no token and a foreign Origin', async () => {
    const s = await served()
    const elsewhere = sandbox()
    const foreign = await Session.create(new JsonlStore(s.run.box.home), { cwd: elsewhere.cwd })
    await foreign.close()
    const foreignFile = await new JsonlStore(s.run.box.home).location(foreign.id)

    const unknown = await remove(s.run, '0000-not-a-session')
    expect(unknown.status).toBe(404)
    expect(unknown.json().error).toMatch(/^No session 0000-not-a-session/)
    const traversal = await remove(s.run, '..%2F..%2Fetc%2Fpasswd')
    expect(traversal.status).toBe(400)
    expect(traversal.json().error).toBe('A session id holds only letters, digits and dashes.')
    const other = await remove(s.run, foreign.id)
    expect(other.status).toBe(403)
    expect(existsSync(foreignFile)).toBe(true)
    const anonymous = await remove(s.run, s.id, { origin: s.run.origin })
    expect(anonymous.status).toBe(401)
    const forged = await remove(s.run, s.id, trusted(s.run, { origin: 'http://evil.example' }))
    expect(forged.status).toBe(403)
    const unsigned = await remove(s.run, s.id, { authorization: `Bearer ${s.run.token}` })
    expect(unsigned.status).toBe(403)
    expect(existsSync(s.file)).toBe(true)

    const deleted = await remove(s.run, s.id)
    expect(deleted.status).toBe(200)
    expect(existsSync(s.file)).toBe(false)
    expect(await rows(s.run)).toEqual([])
    expect((await raw(s.run.origin, `/api/sessions/${s.id}`, { headers: trusted(s.run) })).status).toBe(404)
  })

  it('refuses to delete a session whose turn is running, in one sentence, and keeps its log', async () => {
    run = await startWeb({
      args: ['--permission-mode', 'bypass'],
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'while [ ! -f never ]; do sleep 0.05; done' } }] }],
    })
    const r = run
    const id = (await post(r, '/api/sessions', { cwd: '.' })).json().id as string
    await post(r, `/api/sessions/${id}/input`, { text: 'Start the long job', how: 'enter' })
    await expect.poll(async () => (await raw(r.origin, `/api/sessions/${id}`, { headers: trusted(r) })).json().state).toMatchObject({ busy: true })
    const refused = await remove(r, id)
    expect(refused.status).toBe(409)
    expect(refused.json().error).toBe(`Session ${id} is running; cancel its turn (Esc) before deleting it.`)
    await post(r, `/api/sessions/${id}/cancel`, {})
    await expect.poll(async () => (await raw(r.origin, `/api/sessions/${id}`, { headers: trusted(r) })).json().state).toMatchObject({ busy: false })
    expect((await remove(r, id)).status).toBe(200)
    expect(await rows(r)).toEqual([])
  })

  it('streams the listing ETag at once and again after a change, so the page re-asks only then', async () => {
    const s = await served()
    const response = await fetch(`${s.run.origin}/api/stream`, { headers: { authorization: `Bearer ${s.run.token}` } })
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    let text = ''
    const nextEtag = async (): Promise<string> => {
      for (;;) {
        const match = /data: (\{.*\})\n/.exec(text)
        if (match) {
          text = text.slice((match.index ?? 0) + match[0].length)
          return (JSON.parse(match[1]) as { etag: string }).etag
        }
        const { value, done } = await reader.read()
        if (done) throw new Error('the list stream ended')
        text += decoder.decode(value)
      }
    }
    const first = await nextEtag()
    const listing = await raw(s.run.origin, '/api/sessions', { headers: trusted(s.run) })
    expect(listing.headers.etag).toBe(first)
    await post(s.run, `/api/sessions/${s.id}/title`, { title: 'Renamed' })
    const second = await nextEtag()
    expect(second).not.toBe(first)
    expect((await raw(s.run.origin, '/api/sessions', { headers: trusted(s.run, { 'if-none-match': second }) })).status).toBe(304)
    await reader.cancel()
    expect((await raw(s.run.origin, '/api/stream', {})).status).toBe(401)
  })
})
