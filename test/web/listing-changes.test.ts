import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { ListingChanges, RECHECK_MS } from '../../src/web/listing-changes.js'

afterEach(() => {
  vi.useRealTimers()
})

describe('the live list’s change notices', () => {
  it('watches the store only while a stream listens', async () => {
    const changes = new ListingChanges(new JsonlStore(mkdtempSync(join(tmpdir(), 'rein-changes-'))))
    expect(changes.noticing).toBe('idle')
    const stopOne = changes.listen(() => {})
    const stopTwo = changes.listen(() => {})
    expect(changes.noticing).toBe('notify')
    stopOne()
    expect(changes.noticing).toBe('notify')
    stopTwo()
    expect(changes.noticing).toBe('idle')
  })

  it('falls back to a re-check on a timer when the store cannot be watched, and says so once', async () => {
    vi.useFakeTimers()
    const home = mkdtempSync(join(tmpdir(), 'rein-changes-'))
    writeFileSync(join(home, 'sessions'), 'a file where the sessions folder should be')
    const said: string[] = []
    const changes = new ListingChanges(new JsonlStore(home), (line) => said.push(line))
    const listener = vi.fn()
    const stop = changes.listen(listener)
    await Promise.resolve()
    expect(changes.noticing).toBe('timer')
    expect(said).toHaveLength(1)
    expect(said[0]).toMatch(/^rein web: cannot watch the session store for changes \(.+\); the list re-checks every 5 s instead\.$/)
    await vi.advanceTimersByTimeAsync(RECHECK_MS + 300)
    expect(listener).toHaveBeenCalledTimes(1)
    stop()
    expect(changes.noticing).toBe('idle')
    await vi.advanceTimersByTimeAsync(RECHECK_MS * 3)
    expect(listener).toHaveBeenCalledTimes(1)

    changes.listen(listener)
    await Promise.resolve()
    expect(changes.noticing).toBe('timer')
    expect(said).toHaveLength(1)
  })
})
