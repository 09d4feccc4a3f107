import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import pg from 'pg'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Session } from '../../src/session/session.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { PostgresStore } from '../../src/store/postgres/store.js'
import type { SummaryWatch } from '../../src/store/store.js'
import { ListingChanges, RECHECK_MS } from '../../src/web/listing-changes.js'
import { startWebServer, type WebServer } from '../../src/web/server.js'
import { appendTurn } from '../session/conversation.js'
import { freshDatabase, onDatabase, postgresUrl } from '../support/postgres-db.js'

/**
 * The live list (`GET /api/stream`) hears of what other processes do to the store without a page asking and without
 * a timer: another store instance stands for the other process, writing to the same folder or database.
 */
const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  vi.useRealTimers()
  vi.restoreAllMocks()
})

interface Served {
  server: WebServer
  cwd: string
  home: string
  call(path: string, init?: RequestInit): Promise<Response>
}

async function serve(store?: string): Promise<Served> {
  const root = mkdtempSync(join(tmpdir(), 'rein-live-list-'))
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd, { recursive: true })
  mkdirSync(home, { recursive: true })
  const server = await startWebServer({ root: cwd, home, port: 0, ...(store ? { store: { url: store } } : {}) })
  cleanups.push(() => rm(root, { recursive: true, force: true }), () => server.close())
  const call = (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${server.origin}${path}`, { ...init, headers: { authorization: `Bearer ${server.token}`, origin: server.origin, ...init.headers } })
  return { server, cwd, home, call }
}

/** An open `GET /api/stream`: each `next()` is the next listing ETag it sends. */
async function listStream(served: Served): Promise<{ next(): Promise<string>; close(): Promise<void> }> {
  const response = await served.call('/api/stream')
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let text = ''
  return {
    next: async () => {
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
    },
    close: () => reader.cancel(),
  }
}

/** An event stream read with node:http, whose reads need no timers: it goes on while a test holds the clock. */
function sseOverHttp(served: Served, path: string): { messages(): string[]; close(): void } {
  let text = ''
  const url = new URL(`${served.server.origin}${path}`)
  const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, headers: { authorization: `Bearer ${served.server.token}` } }, (res) =>
    res.on('data', (chunk: Buffer) => (text += chunk.toString())),
  )
  request.on('error', () => {
    // Ended by the test's cleanup.
  })
  request.end()
  return { messages: () => [...text.matchAll(/data: (\{.*\})\n/g)].map((m) => m[1]), close: () => request.destroy() }
}

/** One turn of the event loop, for I/O to arrive while the clock is held. */
const pump = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

async function listedIds(served: Served): Promise<string[]> {
  const body = (await (await served.call('/api/sessions')).json()) as { sessions: { id: string }[] }
  return body.sessions.map((row) => row.id)
}

describe('the live list on the JSONL store', () => {
  it('shows a session another process creates, appends to and deletes, with no page request and every timer tick frozen', async () => {
    // The fallback re-check and the keep-alive are intervals: frozen, they cannot be what tells the stream.
    vi.useFakeTimers({ toFake: ['setInterval'] })
    const served = await serve()
    const stream = await listStream(served)
    cleanups.push(() => stream.close())
    const first = await stream.next()

    const elsewhere = new JsonlStore(served.home)
    const session = await Session.create(elsewhere, { cwd: served.cwd })
    appendTurn(session, 1, 'made in another process')
    await session.close()
    const created = await stream.next()
    expect(created).not.toBe(first)

    const again = await Session.load(elsewhere, session.id)
    again.append('session/title', { title: 'renamed elsewhere' })
    await again.close()
    const appended = await stream.next()
    expect(appended).not.toBe(created)

    const listing = await served.call('/api/sessions', { headers: { 'if-none-match': appended } })
    expect(listing.status).toBe(304)
    const rows = (await (await served.call('/api/sessions')).json()) as { sessions: { id: string; title: string }[] }
    expect(rows.sessions).toMatchObject([{ id: session.id, title: 'renamed elsewhere' }])

    await elsewhere.remove(session.id)
    expect(await stream.next()).not.toBe(appended)
    expect(await listedIds(served)).toEqual([])
  })

  it('shows a session of a workspace folder made after the stream opened', async () => {
    vi.useFakeTimers({ toFake: ['setInterval'] })
    const served = await serve()
    const stream = await listStream(served)
    cleanups.push(() => stream.close())
    await stream.next()
    const sub = join(served.cwd, 'packages', 'api')
    mkdirSync(sub, { recursive: true })
    const session = await Session.create(new JsonlStore(served.home), { cwd: sub })
    appendTurn(session, 1, 'in a subfolder')
    await session.close()
    await stream.next()
    expect(await listedIds(served)).toEqual([session.id])
  })

  it('sends a page following a session another process writes its new events when the store tells, not on a poll', async () => {
    const served = await serve()
    const elsewhere = new JsonlStore(served.home)
    const session = await Session.create(elsewhere, { cwd: served.cwd })
    appendTurn(session, 1, 'first turn elsewhere')
    await session.flush()
    const stream = sseOverHttp(served, `/api/sessions/${session.id}/stream?from=0`)
    cleanups.push(async () => stream.close())
    const seen = (): number[] =>
      stream.messages().flatMap((raw) => {
        const message = JSON.parse(raw) as { kind: string; live?: { type: string; event?: { seq: number } } }
        return message.kind === 'live' && message.live?.type === 'event' ? [message.live.event!.seq] : []
      })
    while (!stream.messages().some((raw) => raw.includes('logged-state'))) await pump()
    expect(seen()).toEqual(session.events.map((e) => e.seq))

    // From here the clock moves only when the test moves it. The store's notice nudges the page's stream, which
    // re-reads after the 250 ms that gather changes: the test moves the clock by exactly that, never to the 1 s poll of
    // the old way, and then only waits.
    const nudge = ListingChanges.prototype.nudge
    let nudged: () => void = () => {}
    const heard = new Promise<void>((resolve) => (nudged = resolve))
    vi.spyOn(ListingChanges.prototype, 'nudge').mockImplementation(function (this: ListingChanges) {
      nudge.call(this)
      nudged()
    })
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    session.append('session/title', { title: 'renamed elsewhere' })
    await session.flush()
    await heard
    await vi.advanceTimersByTimeAsync(250)
    while (seen().length < session.events.length) await pump()
    expect(seen()).toEqual(session.events.map((e) => e.seq))
    vi.useRealTimers()
    await session.close()
  })

  it('re-checks a session running in another process on a timer, so one that died without a word shows interrupted', async () => {
    const served = await serve()
    const elsewhere = new JsonlStore(served.home)
    const held = await Session.create(elsewhere, { cwd: served.cwd })
    held.append('turn/start', { turn: 1 })
    held.append('user/message', { id: 'u1', content: [{ type: 'text', text: 'a long task elsewhere' }], source: { kind: 'user' } })
    await held.flush()
    const child = spawn(process.execPath, ['-e', ''])
    const deadPid = await new Promise<number>((resolve) => child.on('exit', () => resolve(child.pid!)))

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const stream = sseOverHttp(served, '/api/stream')
    cleanups.push(async () => stream.close())
    while (stream.messages().length < 1) await pump()
    // The holder dies without a word: its lock now names a process that is gone, written in place (no new file).
    writeFileSync(`${await elsewhere.location(held.id)}.lock`, JSON.stringify({ pid: deadPid, host: hostname(), startedAt: 0 }))
    await vi.advanceTimersByTimeAsync(RECHECK_MS)
    while (stream.messages().length < 2) await pump()
    vi.useRealTimers()
    const rows = (await (await served.call('/api/sessions')).json()) as { sessions: { id: string; state: string }[] }
    expect(rows.sessions).toMatchObject([{ id: held.id, state: 'interrupted' }])
    await held.close().catch(() => {})
  })

  it('watches the store once for every open stream, and closes the watch when the last stream leaves', async () => {
    const closed = vi.fn()
    const real = JsonlStore.prototype.watchSummaries
    const spy = vi.spyOn(JsonlStore.prototype, 'watchSummaries').mockImplementation(function (this: JsonlStore, cwd, listener): SummaryWatch {
      const watch = real.call(this, cwd, listener)
      return {
        how: watch.how,
        close: () => {
          closed()
          watch.close()
        },
      }
    })
    const served = await serve()
    const one = await listStream(served)
    const two = await listStream(served)
    await one.next()
    await two.next()
    expect(spy).toHaveBeenCalledTimes(1)
    expect(spy.mock.calls[0][0]).toBe('all')
    await one.close()
    // A request after the close is answered after the server saw the first stream end.
    await listedIds(served)
    expect(closed).not.toHaveBeenCalled()
    await two.close()
    await expect.poll(() => closed.mock.calls.length).toBe(1)
  })
})

describe.runIf(postgresUrl)('the live list and delete on the PostgreSQL store', () => {
  it('deletes a session through the web route, with its records, and refuses one another process holds in one sentence', async () => {
    const url = await freshDatabase()
    const served = await serve(url)
    const elsewhere = new PostgresStore(url)
    cleanups.push(() => elsewhere.close())
    const done = await Session.create(elsewhere, { cwd: served.cwd })
    appendTurn(done, 1, 'finished work')
    await done.close()
    const held = await Session.create(elsewhere, { cwd: served.cwd })

    const deleted = await served.call(`/api/sessions/${done.id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(200)
    expect(await deleted.json()).toEqual({ id: done.id, deleted: true })
    expect(await listedIds(served)).toEqual([held.id])
    const left = await onDatabase(url, (db) => db.query('SELECT count(*)::int AS n FROM rein_events WHERE session_id = $1', [done.id]))
    expect(left.rows[0].n).toBe(0)

    const refused = await served.call(`/api/sessions/${held.id}`, { method: 'DELETE' })
    expect(refused.status).toBe(409)
    expect(((await refused.json()) as { error: string }).error).toMatch(
      new RegExp(`^Session ${held.id} is open for writing by process ${process.pid} on this machine .*; wait for it to finish, or continue a copy with rein --fork ${held.id}\\.$`),
    )
    await held.close()
    expect((await served.call(`/api/sessions/${held.id}`, { method: 'DELETE' })).status).toBe(200)
    expect(await listedIds(served)).toEqual([])
  })

  it('shows another process’s append from the change query alone: the listing is not re-read while nothing changes', async () => {
    const relists = vi.spyOn(PostgresStore.prototype, 'summaries')
    const queries = vi.spyOn(pg.Pool.prototype, 'query')
    const changeQueries = (): number => queries.mock.calls.filter((call) => String(call[0]).includes('hashtext')).length
    const url = await freshDatabase()
    const served = await serve(url)
    const elsewhere = new PostgresStore(url)
    cleanups.push(() => elsewhere.close())
    const session = await Session.create(elsewhere, { cwd: served.cwd })
    await session.close()

    const stream = await listStream(served)
    cleanups.push(() => stream.close())
    const first = await stream.next()
    const listedBefore = relists.mock.calls.length
    const asked = changeQueries()
    await expect.poll(changeQueries, { timeout: 30_000 }).toBeGreaterThanOrEqual(asked + 3)
    expect(relists.mock.calls.length).toBe(listedBefore)

    const again = await Session.load(elsewhere, session.id)
    appendTurn(again, 1, 'appended elsewhere')
    await again.close()
    expect(await stream.next()).not.toBe(first)
    expect(relists.mock.calls.length).toBeGreaterThan(listedBefore)
  })
})
