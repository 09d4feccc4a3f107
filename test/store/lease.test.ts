import { describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { takeFileLease } from '../../src/store/lease.js'

const dir = (): string => mkdtempSync(join(tmpdir(), 'rein-lease-'))

describe('the writer lease', () => {
  it('refuses a second holder with a sentence naming the session, the holding process and rein --fork', async () => {
    const path = join(dir(), 's.jsonl.lock')
    const first = takeFileLease(path, 'abc')
    expect(() => takeFileLease(path, 'abc')).toThrow(
      new RegExp(`^Session abc is open for writing by process ${process.pid} on this machine .*rein --fork abc\\.$`),
    )
    await first.release()
    const second = takeFileLease(path, 'abc')
    expect(second.held()).toBe(true)
    await second.release()
    expect(existsSync(path)).toBe(false)
  })

  it('takes over a lease whose owner process is gone on this host', async () => {
    const path = join(dir(), 's.jsonl.lock')
    const child = spawn(process.execPath, ['-e', ''])
    const deadPid = await new Promise<number>((resolve) => child.on('exit', () => resolve(child.pid!)))
    writeFileSync(path, JSON.stringify({ pid: deadPid, host: hostname(), startedAt: Date.now() }))
    const lease = takeFileLease(path, 'abc')
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid)
    await lease.release()
  })

  it('takes over a lease of another host only once it was not refreshed for the stale time', async () => {
    const path = join(dir(), 's.jsonl.lock')
    writeFileSync(path, JSON.stringify({ pid: 1, host: 'elsewhere', startedAt: Date.now() }))
    expect(() => takeFileLease(path, 'abc', 60_000)).toThrow(/process 1 on elsewhere/)
    const old = new Date(Date.now() - 120_000)
    utimesSync(path, old, old)
    const lease = takeFileLease(path, 'abc', 60_000)
    expect(lease.held()).toBe(true)
    await lease.release()
  })
})
