import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/session/events.js'
import { Session } from '../../src/session/session.js'
import { verifyEvents } from '../../src/session/verify.js'
import { SessionError } from '../../src/store/errors.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { DIST } from '../support/cli.js'
import { appendTurn } from './conversation.js'

/**
 * A process kill loses nothing that reached the page cache, so these tests may run on tmpfs when there is one:
 * fsync is free there, which keeps thousands of loads fast. Power loss is not something a test can simulate.
 */
const scratch = existsSync('/dev/shm') ? '/dev/shm' : tmpdir()

let home: string
beforeAll(async () => {
  home = await mkdtemp(join(scratch, 'rein-durable-'))
})
afterAll(async () => {
  await rm(home, { recursive: true, force: true })
})

describe('a session file cut short', () => {
  it('loads at every byte offset of its last 2 KiB with every fully written event intact', async () => {
    const session = await Session.create(new JsonlStore(home), { cwd: '/repo' })
    for (let turn = 1; turn <= 8; turn++) appendTurn(session, turn, `prompt ${turn} ünïcödé 🚀`, 2)
    await session.close()
    const original = await readFile(session.path!)
    const written: SessionEvent[] = [...session.events]
    /** Byte offset at which each event's JSON is complete (its newline not needed). */
    const completeAt: number[] = []
    let offset = original.indexOf(10) + 1
    for (let i = 0; i < written.length; i++) {
      const newline = original.indexOf(10, offset)
      completeAt.push(newline)
      offset = newline + 1
    }
    expect(original.length).toBeGreaterThan(4096)
    const writtenJson = written.map((_, i) => JSON.stringify(written.slice(0, i)))
    writtenJson.push(JSON.stringify(written))

    let loads = 0
    for (let cut = original.length - 2048; cut <= original.length; cut++) {
      await writeFile(session.path!, original.subarray(0, cut))
      let loaded: Session
      try {
        loaded = await Session.load(new JsonlStore(home), session.id)
      } catch (error) {
        // The only acceptable failure is the clear damaged-line error; with a torn tail none is expected.
        expect(error).toBeInstanceOf(SessionError)
        throw error
      }
      const intact = completeAt.filter((end) => end <= cut).length
      // Compared as JSON text: byte-exact, and fast enough for two thousand loads.
      expect(JSON.stringify(loaded.events.slice(0, intact))).toBe(writtenJson[intact])
      expect(verifyEvents(loaded.header, loaded.events)).toEqual([])
      await loaded.close()
      if (cut % 32 === 0) {
        // Loading again finds nothing left to repair: the repair itself was written whole.
        const again = await Session.load(new JsonlStore(home), session.id)
        expect(again.repair.appended).toEqual([])
        expect(JSON.stringify(again.events)).toBe(JSON.stringify(loaded.events))
        await again.close()
      }
      loads++
    }
    expect(loads).toBe(2049)
  })
})

describe('a process killed while appending', () => {
  const dist = DIST
  const appender = resolve('test/session/fixtures/appender.mjs')

  /** Runs the appender, kills it after `delayMs`, and returns its session id and the last durable length it reported. */
  function runAndKill(delayMs: number): Promise<{ id: string; flushed: number }> {
    return new Promise((done, fail) => {
      const child = spawn(process.execPath, [appender, dist, home], { stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      let err = ''
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        if (!out.includes('\n') && chunk.includes('\n')) setTimeout(() => child.kill('SIGKILL'), delayMs)
        out += chunk
      })
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
      child.on('error', fail)
      child.on('close', (_code, signal) => {
        const id = /^id (\S+)$/m.exec(out)?.[1]
        if (signal !== 'SIGKILL' || !id) return fail(new Error(`the appender did not run until killed: ${err || out}`))
        const counts = [...out.matchAll(/^flushed (\d+)$/gm)].map((m) => Number(m[1]))
        done({ id, flushed: counts.at(-1) ?? 0 })
      })
    })
  }

  it('keeps every event flushed before a SIGKILL, 50 times', async () => {
    if (!existsSync(join(dist, 'session/session.js'))) throw new Error('dist/ is missing; run `npx tsc -p .` (npm test builds first).')
    for (let run = 0; run < 50; run++) {
      const { id, flushed } = await runAndKill(Math.floor(Math.random() * 40))
      const session = await Session.load(new JsonlStore(home), id)
      const original = session.events.length - session.repair.appended.length
      expect(original).toBeGreaterThanOrEqual(flushed)
      session.events.forEach((event, seq) => expect(event.seq).toBe(seq))
      expect(verifyEvents(session.header, session.events)).toEqual([])
      await session.close()
    }
  })
})
