import { afterEach, describe, expect, it, vi } from 'vitest'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Faults injected into the lease's own file calls: each entry fails the next call of that name with that code. */
const faults = vi.hoisted(() => ({ writeSync: [] as string[], readFileSync: [] as string[], linkSync: [] as string[] }))

vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>()
  const failing = <K extends keyof typeof faults>(name: K, real: (...args: never[]) => unknown) =>
    (...args: never[]) => {
      const code = faults[name].shift()
      if (code) throw Object.assign(new Error(`${code}: injected`), { code })
      return real(...args)
    }
  return {
    ...fs,
    writeSync: failing('writeSync', fs.writeSync as never),
    readFileSync: failing('readFileSync', fs.readFileSync as never),
    linkSync: failing('linkSync', fs.linkSync as never),
  }
})

const { takeFileLease } = await import('../../src/store/lease.js')

const dir = (): string => mkdtempSync(join(tmpdir(), 'rein-lease-'))

afterEach(() => {
  faults.writeSync.length = 0
  faults.readFileSync.length = 0
  faults.linkSync.length = 0
})

describe('the writer lease under file-system faults', () => {
  it('a start whose lock write fails on a full disk removes what it created, and the next start takes the lease', async () => {
    const folder = dir()
    const path = join(folder, 's.jsonl.lock')
    faults.writeSync.push('ENOSPC')
    expect(() => takeFileLease(path, 'abc')).toThrow(/ENOSPC/)
    expect(readdirSync(folder)).toEqual([])
    const lease = takeFileLease(path, 'abc')
    expect(lease.held()).toBe(true)
    await lease.release()
  })

  it('a start on a file system without hard links creates the lock in place and cleans up a failed write there too', async () => {
    const folder = dir()
    const path = join(folder, 's.jsonl.lock')
    faults.linkSync.push('EPERM')
    const lease = takeFileLease(path, 'abc')
    expect(readdirSync(folder)).toEqual(['s.jsonl.lock'])
    await lease.release()
    faults.linkSync.push('EPERM')
    // The private file's write succeeds, the in-place write fails: both files are gone afterwards.
    faults.writeSync.push('', 'ENOSPC')
    expect(() => takeFileLease(path, 'abc')).toThrow(/ENOSPC/)
    expect(readdirSync(folder)).toEqual([])
  })

  it('a lock that cannot be read for a moment (EMFILE) is still held: the holder is not told it was taken over', async () => {
    const path = join(dir(), 's.jsonl.lock')
    const lease = takeFileLease(path, 'abc')
    faults.readFileSync.push('EMFILE', 'EMFILE')
    expect(lease.held()).toBe(true)
    await lease.release()
  })

  it('a lock that stays unreadable gives its own error, not a takeover', async () => {
    const path = join(dir(), 's.jsonl.lock')
    const lease = takeFileLease(path, 'abc')
    faults.readFileSync.push('EIO', 'EIO', 'EIO')
    expect(() => lease.held()).toThrow(expect.objectContaining({ code: 'EIO' }))
    expect(lease.held()).toBe(true)
    await lease.release()
  })
})
