import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EventType, SessionEvent } from '../../src/session/events.js'
import { textOf } from '../../src/llm/messages.js'
import { Session } from '../../src/session/session.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import { appendTurn } from './conversation.js'

const text = (t: string) => [{ type: 'text' as const, text: t }]

describe('Session.append', () => {
  it('assigns contiguous seqs from 0 and a time in milliseconds', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    const before = Date.now()
    const a = session.append('turn/start', { turn: 1 })
    const b = session.append('turn/end', { turn: 1, reason: 'completed' })
    expect([a.seq, b.seq, session.length]).toEqual([0, 1, 2])
    expect(a.time).toBeGreaterThanOrEqual(before)
    expect(a.time).toBeLessThanOrEqual(Date.now())
  })

  it('gives surface events surfaceOp append by default and none to other events', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    const prompt = session.append('user/message', { id: 'u', content: text('hi'), source: { kind: 'user' } })
    const start = session.append('turn/start', { turn: 1 })
    expect(prompt.surfaceOp).toBe('append')
    expect('surfaceOp' in start).toBe(false)
  })

  it('refuses a surfaceOp on a non-surface event and changes nothing', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    expect(() => session.append('turn/start', { turn: 1 }, { surfaceOp: 'append' })).toThrow(/only .* are surface events/)
    expect(session.length).toBe(0)
  })

  it.each([
    ['undefined', { id: 'u', content: text('x'), source: { kind: 'user', extra: undefined } }, /source\.extra is undefined/],
    ['a function', { id: 'u', content: text('x'), source: { kind: 'user', f: () => 1 } }, /source\.f is a function/],
    ['NaN', { id: 'u', content: text('x'), source: { kind: 'user', n: Number.NaN } }, /source\.n is NaN/],
    ['Infinity', { id: 'u', content: text('x'), source: { kind: 'user', n: Infinity } }, /is Infinity/],
    ['a Date', { id: 'u', content: text('x'), source: { kind: 'user', d: new Date() } }, /is a Date object/],
    ['a bigint', { id: 'u', content: text('x'), source: { kind: 'user', b: 1n } }, /is a bigint/],
  ])('rejects data holding %s with an error naming the path, and changes nothing', async (_name, data, message) => {
    const store = new MemoryStore()
    const session = await Session.create(store, { cwd: '/repo' })
    const seen: SessionEvent[] = []
    session.subscribe((e) => seen.push(e))
    expect(() => session.append('user/message', data as never)).toThrow(message)
    await session.flush()
    expect(session.length).toBe(0)
    expect(session.messages()).toEqual([])
    expect(seen).toEqual([])
    expect(store.lines.get(session.id)).toHaveLength(1)
  })

  it('rejects data with a cycle', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    const source: Record<string, unknown> = { kind: 'user' }
    source.self = source
    expect(() => session.append('user/message', { id: 'u', content: text('x'), source } as never)).toThrow(/cycle/)
    expect(session.length).toBe(0)
  })

  it('rejects an unregistered event type unless it is marked ignorable', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    expect(() => session.append('plugin/thing' as never, {} as never)).toThrow(/not registered/)
    const event = session.append('plugin/thing' as EventType, { x: 1 } as never, { ignorable: true })
    expect(event.ignorable).toBe(true)
  })

  it('stores a frozen copy, so later changes to the caller’s object do not reach the log', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    const content = text('original')
    const event = session.append('user/message', { id: 'u', content, source: { kind: 'user' } })
    content[0].text = 'changed'
    expect(event.data.content[0]).toEqual({ type: 'text', text: 'original' })
    expect(Object.isFrozen(event.data.content[0])).toBe(true)
    expect(Object.isFrozen(event)).toBe(true)
  })

  it('notifies subscribers synchronously, and keeps going when one throws', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    const seen: number[] = []
    session.subscribe(() => {
      throw new Error('listener bug')
    })
    const stop = session.subscribe((e) => seen.push(e.seq))
    session.append('turn/start', { turn: 1 })
    expect(seen).toEqual([0])
    stop()
    session.append('turn/end', { turn: 1, reason: 'completed' })
    expect(seen).toEqual([0])
  })

  it('returns the latest event of a type from last()', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    appendTurn(session, 1, 'one')
    appendTurn(session, 2, 'two')
    expect(session.last('turn/start')?.data.turn).toBe(2)
    expect(session.last('session/title')).toBeUndefined()
  })

  it('refuses appends after close', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    await session.close()
    expect(() => session.append('turn/start', { turn: 1 })).toThrow(/closed/)
  })
})

describe('Session.messages', () => {
  it('returns the same read-only list while nothing changes, and an earlier list never changes afterwards', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    session.append('user/message', { id: 'u', content: text('hi'), source: { kind: 'user' } })
    const first = session.messages()
    expect(session.messages()).toBe(first)
    expect(Array.isArray(first)).toBe(true)
    expect(Object.isFrozen(first[0])).toBe(true)
    expect(Object.isFrozen(first[0].content)).toBe(true)
    expect(() => (first as unknown[]).push({})).toThrow(/read-only view/)
    expect(() => ((first as unknown[])[0] = {})).toThrow(/read-only view/)
    session.append('assistant/message', { turn: 1, step: 1, message: { role: 'assistant', content: text('hello') } })
    const second = session.messages()
    expect(second).toHaveLength(2)
    expect(second[0]).toBe(first[0])
    expect(first).toHaveLength(1)
    expect(JSON.stringify(first)).toBe(JSON.stringify([{ role: 'user', content: text('hi') }]))
    expect([...second].map((m) => m.role)).toEqual(['user', 'assistant'])
  })

  it('keeps a list returned before a replace unchanged after it', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    for (let i = 0; i < 3; i++) session.append('user/message', { id: `u${i}`, content: text(`m${i}`), source: { kind: 'user' } })
    const before = session.messages()
    const surfaceBefore = session.surface()
    session.append('context/message', { id: 's', content: text('sum'), source: { kind: 'x' } }, { surfaceOp: { op: 'replace', start: 0, end: 1 } })
    expect(JSON.stringify(before)).toBe(JSON.stringify(['m0', 'm1', 'm2'].map((t) => ({ role: 'user', content: text(t) }))))
    expect(surfaceBefore.map((e) => e.seq)).toEqual([0, 1, 2])
    expect(session.messages()).toHaveLength(2)
  })

  it('projects an empty assistant message to nothing', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    session.append('assistant/message', { turn: 1, step: 1, message: { role: 'assistant', content: [] } })
    expect(session.messages()).toEqual([])
    expect(session.surface()).toHaveLength(1)
  })

  it('puts a replacing event in the place of the entries it shadows, keeping them in the log', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    for (let i = 0; i < 4; i++) session.append('user/message', { id: `u${i}`, content: text(`m${i}`), source: { kind: 'user' } })
    session.messages()
    session.append(
      'context/message',
      { id: 's', content: text('summary'), source: { kind: 'compaction' } },
      { surfaceOp: { op: 'replace', start: 1, end: 2 } },
    )
    expect(session.surface().map((e) => e.seq)).toEqual([0, 4, 3])
    expect(session.messages().map((m) => (typeof m.content === 'string' ? m.content : textOf(m.content)))).toEqual(['m0', 'summary', 'm3'])
    expect(session.length).toBe(5)
  })

  it('refuses a replace whose start is not on the surface, or comes after its end', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    session.append('turn/start', { turn: 1 })
    session.append('user/message', { id: 'a', content: text('a'), source: { kind: 'user' } })
    session.append('user/message', { id: 'b', content: text('b'), source: { kind: 'user' } })
    const summary = { id: 's', content: text('s'), source: { kind: 'x' } }
    expect(() => session.append('context/message', summary, { surfaceOp: { op: 'replace', start: 0, end: 1 } })).toThrow(
      /start 0 is not on the current surface/,
    )
    expect(() => session.append('context/message', summary, { surfaceOp: { op: 'replace', start: 2, end: 1 } })).toThrow(
      /comes after end/,
    )
    expect(session.length).toBe(3)
  })
})

describe('the JSONL store', () => {
  let home: string
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'rein-session-'))
  })
  afterEach(async () => {
    await rm(home, { recursive: true, force: true })
  })

  it('writes the header line then one line per event, only on flush', async () => {
    const store = new JsonlStore(home)
    const session = await Session.create(store, { cwd: '/repo' })
    expect(session.path).toBe(join(home, 'sessions', session.path!.split('/').at(-2)!, `${session.id}.jsonl`))
    session.append('turn/start', { turn: 1 })
    expect((await readFile(session.path!, 'utf8')).split('\n')).toHaveLength(2)
    await session.flush()
    const lines = (await readFile(session.path!, 'utf8')).trimEnd().split('\n')
    expect(JSON.parse(lines[0])).toMatchObject({ type: 'session', version: 1, id: session.id, cwd: '/repo' })
    expect(lines[1]).toMatch(/^\{"seq":0,"time":\d+,"type":"turn\/start","data":\{"turn":1\}\}$/)
  })

  it('loads a session with the same events, surface and messages it was written with', async () => {
    const store = new JsonlStore(home)
    const session = await Session.create(store, { cwd: '/repo' })
    appendTurn(session, 1, 'first prompt', 2)
    appendTurn(session, 2, 'second prompt')
    await session.close()
    const loaded = await Session.load(new JsonlStore(home), session.id)
    expect(loaded.events).toEqual(session.events)
    expect(loaded.messages()).toEqual(session.messages())
    expect(loaded.repair.appended).toEqual([])
    expect(loaded.header).toEqual(session.header)
  })

  it('appends after a load to the same file', async () => {
    const store = new JsonlStore(home)
    const session = await Session.create(store, { cwd: '/repo' })
    appendTurn(session, 1, 'first')
    await session.close()
    const again = await Session.load(store, session.id)
    appendTurn(again, 2, 'second')
    await again.close()
    const third = await Session.load(store, session.id)
    expect(third.events.map((e) => e.seq)).toEqual(third.events.map((_, i) => i))
    expect(third.last('turn/end')?.data.turn).toBe(2)
  })
})
