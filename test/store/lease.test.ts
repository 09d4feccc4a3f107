import { afterEach, describe, expect, it, vi } from 'vitest'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileLeaseIsHeld, takeFileLease } from '../../src/store/lease.js'
import { processStart } from '../../src/store/process-identity.js'

afterEach(() => {
  vi.useRealTimers()
})

const hasProc = processStart(process.pid) !== undefined
const ago = (ms: number): Date => new Date(Date.now() - ms)

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

  it('keeps a live holder on this host its lease however late its refresh is (a loaded machine, a clock step)', async () => {
    const path = join(dir(), 's.jsonl.lock')
    const holder = takeFileLease(path, 'abc', 1_000)
    // Refreshes missed for an hour (an event loop starved under load), then the clock stepped a day ahead.
    utimesSync(path, ago(3_600_000), ago(3_600_000))
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 86_400_000 })
    expect(fileLeaseIsHeld(path, 1_000)).toBe(true)
    expect(() => takeFileLease(path, 'abc', 1_000)).toThrow(new RegExp(`^Session abc is open for writing by process ${process.pid} on this machine`))
    expect(holder.held()).toBe(true)
    vi.useRealTimers()
    await holder.release()
    expect(existsSync(path)).toBe(false)
  })

  it.runIf(hasProc)('takes over a lease whose pid now names another process (the pid was reused)', async () => {
    const path = join(dir(), 's.jsonl.lock')
    // This test's own pid is alive, but the lock says its owner started at another time: a dead owner's pid reused.
    writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), startedAt: Date.now(), proc: 'another-boot:1' }))
    expect(fileLeaseIsHeld(path)).toBe(false)
    const lease = takeFileLease(path, 'abc')
    expect(JSON.parse(readFileSync(path, 'utf8')).proc).toBe(processStart(process.pid))
    await lease.release()
  })

  it.runIf(hasProc)('refuses a lease whose live owner is the very process it names', () => {
    const path = join(dir(), 's.jsonl.lock')
    writeFileSync(path, JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: Date.now(), proc: processStart(process.ppid) }))
    utimesSync(path, ago(3_600_000), ago(3_600_000))
    expect(() => takeFileLease(path, 'abc')).toThrow(new RegExp(`by process ${process.ppid} on this machine`))
  })

  it('heals an empty or unparsable lock left by a writer that failed after creating it', async () => {
    for (const leftover of ['', '{"pid":', 'not json']) {
      const path = join(dir(), 's.jsonl.lock')
      writeFileSync(path, leftover)
      // Just made: its writer may still be between create and write, so it is left alone...
      expect(() => takeFileLease(path, 'abc')).toThrow(/^Session abc is open for writing by another process/)
      // ...and once past that window it is stale whatever the stale time of owned leases.
      utimesSync(path, ago(60_000), ago(60_000))
      const lease = takeFileLease(path, 'abc', 3_600_000)
      expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid)
      await lease.release()
    }
  })

  it('never shows another process an unfilled lock, and leaves nothing beside it but the lock', async () => {
    const folder = dir()
    const path = join(folder, 's.jsonl.lock')
    const lease = takeFileLease(path, 'abc')
    expect(readdirSync(folder)).toEqual(['s.jsonl.lock'])
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() })
    await lease.release()
    expect(readdirSync(folder)).toEqual([])
  })
})
