import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Session } from '../../src/session/session.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { SessionsFolderWatch } from '../../src/store/listing-watch.js'
import { listSessions } from '../../src/store/listing.js'
import { appendTurn } from '../session/conversation.js'

/** A listener that counts what it is told and lets a test wait for the next change. */
function hearing(): { changed(): void; failed(error: Error): void; changes: number; failures: Error[]; nextChange(): Promise<void> } {
  let wake: (() => void) | undefined
  const heard = {
    changes: 0,
    failures: [] as Error[],
    changed: () => {
      heard.changes++
      wake?.()
    },
    failed: (error: Error) => heard.failures.push(error),
    nextChange: () => new Promise<void>((resolve) => (wake = resolve)),
  }
  return heard
}

async function made(store: JsonlStore, cwd: string, prompt: string): Promise<Session> {
  const session = await Session.create(store, { cwd })
  appendTurn(session, 1, prompt)
  await session.close()
  return session
}

describe('watching the JSONL store’s sessions folders', () => {
  it('hears of another process’s new session and append, and lists them from memory as the folders would', async () => {
    const home = mkdtempSync(join(tmpdir(), 'rein-watch-'))
    const watching = new JsonlStore(home)
    const elsewhere = new JsonlStore(home)
    await made(elsewhere, '/repo/a', 'before the watch')
    const heard = hearing()
    const watch = watching.watchSummaries('all', heard)
    expect(await watching.summaries('all')).toHaveLength(1)

    const change = heard.nextChange()
    const fresh = await made(elsewhere, '/repo/b', 'in a folder made after the watch')
    await change
    const grown = await Session.load(elsewhere, fresh.id)
    appendTurn(grown, 2, 'and a second turn')
    await grown.close()
    // What the watch lists equals a listing read from the folders by a store without a watch.
    const byFolders = await listSessions(new JsonlStore(home), 'all')
    await expect.poll(() => listSessions(watching, 'all')).toEqual(byFolders)
    expect(byFolders.find((s) => s.id === fresh.id)?.turns).toBe(2)
    watch.close()
    expect(heard.failures).toEqual([])
  })

  it('lists this process’s own write at the very next listing', async () => {
    const home = mkdtempSync(join(tmpdir(), 'rein-watch-'))
    const store = new JsonlStore(home)
    const first = await made(store, '/repo', 'one')
    const watch = store.watchSummaries('all', hearing())
    expect((await store.summaries('all')).map((s) => s.turns)).toEqual([1])
    const again = await Session.load(store, first.id)
    appendTurn(again, 2, 'two')
    await again.close()
    // The store marks its own write in the watch; it does not depend on the notification having arrived.
    expect((await store.summaries('all')).map((s) => s.turns)).toEqual([2])
    watch.close()
  })

  it('keeps hearing a workspace whose folder was removed and made again', async () => {
    const home = mkdtempSync(join(tmpdir(), 'rein-watch-'))
    const watching = new JsonlStore(home)
    const elsewhere = new JsonlStore(home)
    const old = await made(elsewhere, '/repo', 'before')
    const heard = hearing()
    const watch = watching.watchSummaries('all', heard)
    expect((await watching.summaries('all')).map((s) => s.id)).toEqual([old.id])
    const removed = heard.nextChange()
    rmSync(dirname(await elsewhere.location(old.id)), { recursive: true })
    await removed
    await expect.poll(async () => (await watching.summaries('all')).length).toBe(0)
    const fresh = await made(new JsonlStore(home), '/repo', 'after')
    await expect.poll(async () => (await watching.summaries('all')).map((s) => s.id)).toEqual([fresh.id])
    const grown = await Session.load(new JsonlStore(home), fresh.id)
    appendTurn(grown, 2, 'heard through the new folder')
    await grown.close()
    await expect.poll(async () => (await watching.summaries('all'))[0].turns).toBe(2)
    watch.close()
  })

  it('releases every watcher when closed, and hears nothing after', async () => {
    const home = mkdtempSync(join(tmpdir(), 'rein-watch-'))
    const store = new JsonlStore(home)
    await made(store, '/repo/a', 'a')
    await made(store, '/repo/b', 'b')
    const heard = hearing()
    const watch = new SessionsFolderWatch(store.root, 'all', heard)
    expect(watch.watching).toBe(3)
    watch.close()
    expect(watch.watching).toBe(0)
    await made(store, '/repo/c', 'c')
    await new Promise((resolve) => setImmediate(resolve))
    expect(heard.changes).toBe(0)
  })

  it('fails once, with the cause, when the sessions folder cannot be watched, and holds no watcher', async () => {
    const home = mkdtempSync(join(tmpdir(), 'rein-watch-'))
    writeFileSync(join(home, 'sessions'), 'not a folder')
    const heard = hearing()
    const watch = new SessionsFolderWatch(join(home, 'sessions'), 'all', heard)
    await Promise.resolve()
    expect(heard.failures).toHaveLength(1)
    expect(heard.failures[0].message).toMatch(/EEXIST|ENOTDIR/)
    expect(watch.watching).toBe(0)
  })
})
