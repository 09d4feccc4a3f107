import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SessionEvent, SurfaceOp } from '../../src/session/events.js'
import { anthropicBody, AnthropicBodyEncoder } from '../../src/llm/anthropic/body.js'
import { chatBody, ChatBodyEncoder } from '../../src/llm/chat/body.js'
import { lineageOf } from '../../src/llm/lineage.js'
import type { Message } from '../../src/llm/messages.js'
import { Session } from '../../src/session/session.js'
import { MemoryStore } from '../../src/store/memory-store.js'

/** One step of a random history: append a message or a non-surface event, or try a replace of a span. */
type Action =
  | { kind: 'append'; text: string }
  | { kind: 'other' }
  | { kind: 'replace'; from: number; length: number; text: string }
  | { kind: 'bad-replace'; start: number; end: number }
  | { kind: 'derive' }

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), text: fc.string({ maxLength: 6 }) }),
  fc.constant({ kind: 'other' as const }),
  fc.record({ kind: fc.constant('replace' as const), from: fc.nat(40), length: fc.nat(5), text: fc.string({ maxLength: 6 }) }),
  fc.record({ kind: fc.constant('bad-replace' as const), start: fc.integer({ min: -2, max: 60 }), end: fc.integer({ min: -2, max: 60 }) }),
  fc.constant({ kind: 'derive' as const }),
)

/** The surface computed from scratch, independently of the incremental one: a plain fold over the log. */
function foldSurface(events: readonly SessionEvent[]): SessionEvent[] {
  const surface: SessionEvent[] = []
  for (const event of events) {
    if (event.surfaceOp === undefined) continue
    if (event.surfaceOp === 'append') {
      surface.push(event)
      continue
    }
    const { start, end } = event.surfaceOp
    const from = surface.findIndex((e) => e.seq === start)
    const to = surface.findIndex((e) => e.seq === end)
    surface.splice(from, to - from + 1, event)
  }
  return surface
}

function isValidReplace(events: readonly SessionEvent[], start: number, end: number): boolean {
  const surface = foldSurface(events).map((e) => e.seq)
  const from = surface.indexOf(start)
  const to = surface.indexOf(end)
  return from !== -1 && to !== -1 && from <= to
}

const message = (text: string) => ({ id: 'm', content: [{ type: 'text' as const, text }], source: { kind: 'user' } })

describe('the surface', () => {
  it('stays equal to a from-scratch fold through random appends and valid replaces', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { maxLength: 80 }), async (actions) => {
        const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
        for (const a of actions) {
          if (a.kind === 'append') session.append('user/message', message(a.text))
          else if (a.kind === 'other') session.append('todo/write', { todos: [] })
          else if (a.kind === 'derive') session.messages()
          else if (a.kind === 'replace') {
            const surface = session.surface()
            if (!surface.length) continue
            const from = a.from % surface.length
            const to = Math.min(surface.length - 1, from + a.length)
            const op: SurfaceOp = { op: 'replace', start: surface[from].seq, end: surface[to].seq }
            session.append('context/message', message(a.text), { surfaceOp: op })
          }
          const expected = foldSurface(session.events)
          expect(session.surface()).toEqual(expected)
          expect(session.messages()).toEqual(expected.map((e) => ({ role: 'user', content: (e.data as { content: unknown }).content })))
        }
      }),
      { numRuns: 150 },
    )
  })

  it('rejects invalid replaces without changing the log, the surface or the messages', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { maxLength: 60 }), async (actions) => {
        const store = new MemoryStore()
        const session = await Session.create(store, { cwd: '/repo' })
        for (const a of actions) {
          if (a.kind === 'append') session.append('user/message', message(a.text))
          else if (a.kind === 'other') session.append('todo/write', { todos: [] })
          else if (a.kind === 'bad-replace') {
            if (isValidReplace(session.events, a.start, a.end)) continue
            const before = { length: session.length, surface: session.surface(), messages: session.messages() }
            expect(() =>
              session.append('context/message', message('x'), { surfaceOp: { op: 'replace', start: a.start, end: a.end } }),
            ).toThrow(/cannot append context\/message/)
            expect(session.length).toBe(before.length)
            expect(session.surface()).toEqual(before.surface)
            expect(session.messages()).toEqual(before.messages)
          }
        }
        await session.flush()
        expect(store.lines.get(session.id)).toHaveLength(session.length + 1)
      }),
      { numRuns: 150 },
    )
  })

  it('hands out message lists that extend every earlier list of the same lineage, and bodies kept across them are whole', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { maxLength: 80 }), async (actions) => {
        const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
        const chat = new ChatBodyEncoder()
        const anthropic = new AnthropicBodyEncoder()
        const handed: { lineage: object | undefined; messages: Message[] }[] = []
        for (const a of actions) {
          if (a.kind === 'append') session.append('user/message', message(a.text))
          else if (a.kind === 'other') session.append('todo/write', { todos: [] })
          else if (a.kind === 'replace') {
            const surface = session.surface()
            if (!surface.length) continue
            const from = a.from % surface.length
            const op: SurfaceOp = { op: 'replace', start: surface[from].seq, end: surface[Math.min(surface.length - 1, from + a.length)].seq }
            session.append('context/message', message(a.text), { surfaceOp: op })
          }
          const list = session.messages()
          const lineage = lineageOf(list)
          expect(lineage).toBeDefined()
          for (const earlier of handed.filter((h) => h.lineage === lineage)) {
            expect(list.length).toBeGreaterThanOrEqual(earlier.messages.length)
            earlier.messages.forEach((m, i) => expect(list[i]).toBe(m))
          }
          handed.push({ lineage, messages: [...list] })
          const request = { config: { model: 'deepseek-flash', effort: 'high' as const }, system: 'sys', tools: [], messages: list }
          expect(Buffer.concat(chat.encode(request).chunks).toString('utf8')).toBe(chatBody({ ...request, messages: [...list] }))
          expect(Buffer.concat(anthropic.encode(request).chunks).toString('utf8')).toBe(anthropicBody({ ...request, messages: [...list] }))
        }
      }),
      { numRuns: 150 },
    )
  })
})
