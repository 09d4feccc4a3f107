// Append throughput: in memory, and to the JSONL store with a flush (fdatasync) every 10 and every 100 events.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../dist/session/session.js'
import { JsonlStore } from '../dist/store/jsonl-store.js'
import { MemoryStore } from '../dist/store/memory-store.js'
import { appendRealisticTurn, random } from './session-fixture.mjs'

/** Appends realistic turns until `events` events exist, flushing every `flushEvery`; returns events per second. */
async function measure(session, events, flushEvery) {
  const rand = random(7)
  let turn = 0
  let flushedAt = 0
  const start = performance.now()
  while (session.length < events) {
    appendRealisticTurn(session, ++turn, rand, 3)
    if (flushEvery && session.length - flushedAt >= flushEvery) {
      await session.flush()
      flushedAt = session.length
    }
  }
  await session.flush()
  const seconds = (performance.now() - start) / 1000
  return { rate: session.length / seconds, seconds, events: session.length }
}

const home = mkdtempSync(join(tmpdir(), 'rein-bench-append-'))
try {
  const memory = await measure(await Session.create(new MemoryStore(), { cwd: '/bench' }), 50_000, 0)
  console.log(`append, memory store:               ${Math.round(memory.rate).toLocaleString('en')} events/s (${memory.events} events)`)
  const every100 = await measure(await Session.create(new JsonlStore(home), { cwd: '/bench' }), 20_000, 100)
  console.log(`append, JSONL, flush every 100:     ${Math.round(every100.rate).toLocaleString('en')} events/s (${every100.events} events)`)
  const every10 = await measure(await Session.create(new JsonlStore(home), { cwd: '/bench' }), 5_000, 10)
  console.log(`append, JSONL, flush every 10:      ${Math.round(every10.rate).toLocaleString('en')} events/s (${every10.events} events)`)
} finally {
  rmSync(home, { recursive: true, force: true })
}
