import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readSessionLog } from '../../src/session/load.js'
import { Session } from '../../src/session/session.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import type { SessionStore } from '../../src/store/store.js'

const stores: [string, () => SessionStore][] = [
  ['the memory store', () => new MemoryStore()],
  ['the JSONL store', () => new JsonlStore(mkdtempSync(join(tmpdir(), 'rein-remove-')))],
]

describe.each(stores)('SessionStore.remove in %s', (_name, make) => {
  it('deletes a closed session: it is no longer read or listed, and its neighbour is untouched', async () => {
    const store = make()
    const gone = await Session.create(store, { cwd: '/work/a' })
    await gone.close()
    const kept = await Session.create(store, { cwd: '/work/a' })
    await kept.close()
    await store.remove?.(gone.id)
    await expect(readSessionLog(store, gone.id)).rejects.toMatchObject({ code: 'not-found' })
    expect((await store.summaries('all')).map((s) => s.id)).toEqual([kept.id])
    expect((await readSessionLog(store, kept.id)).header.id).toBe(kept.id)
  })

  it('refuses a session whose writer lease is held, and keeps it whole', async () => {
    const store = make()
    const open = await Session.create(store, { cwd: '/work/a' })
    await expect(store.remove?.(open.id)).rejects.toMatchObject({ code: 'busy' })
    await open.close()
    expect((await readSessionLog(store, open.id)).header.id).toBe(open.id)
  })

  it('answers an unknown id with not-found', async () => {
    await expect(make().remove?.('no-such-session')).rejects.toMatchObject({ code: 'not-found' })
  })
})
