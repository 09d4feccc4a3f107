import { describe, expect, it } from 'vitest'
import type { SessionEvent, SessionHeader } from '../../src/session/events.js'
import { Session } from '../../src/session/session.js'
import { isDamage, verifyEvents, verifySession } from '../../src/session/verify.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import { appendTurn } from './conversation.js'

async function clean(): Promise<{ header: SessionHeader; events: SessionEvent[] }> {
  const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
  appendTurn(session, 1, 'one', 2)
  appendTurn(session, 2, 'two')
  return { header: session.header, events: structuredClone([...session.events]) }
}

/** The events with the one at `seq` removed and later seqs renumbered, so only the structure is wrong. */
function without(events: SessionEvent[], seq: number): SessionEvent[] {
  return events.filter((e) => e.seq !== seq).map((e, i) => ({ ...e, seq: i }))
}

describe('verifyEvents', () => {
  it('finds no problem in a well-formed log', async () => {
    const { header, events } = await clean()
    expect(verifyEvents(header, events)).toEqual([])
  })

  it('reports a missing tool result at the seq of the call', async () => {
    const { header, events } = await clean()
    const result = events.find((e) => e.type === 'tool/result')!
    const problems = verifyEvents(header, without(events, result.seq))
    expect(problems).toContainEqual({ seq: 3, message: 'tool call call-1-0 (bash) has no tool/result before its turn ends' })
  })

  it('reports a seq gap, a surfaceOp on a non-surface event and a nested turn with their seqs', async () => {
    const { header, events } = await clean()
    events[4] = { ...events[4], seq: 40 }
    ;(events[0] as SessionEvent).surfaceOp = 'append'
    const problems = verifyEvents(header, events)
    expect(problems).toContainEqual({ seq: 4, message: 'event has seq 40 where 4 was expected' })
    expect(problems.find((p) => p.seq === 0)?.message).toMatch(/turn\/start with a surfaceOp/)
  })

  it('reports a turn that never ended and a step/end with the wrong step', async () => {
    const { header, events } = await clean()
    const lastEnd = events.length - 1
    const stepEnd = events.findIndex((e) => e.type === 'step/end')
    ;(events[stepEnd].data as { step: number }).step = 9
    const problems = verifyEvents(header, without(events, lastEnd))
    expect(problems).toContainEqual({ seq: stepEnd, message: 'step/end names step 9, but step 1 is open' })
    expect(problems.some((p) => /turn 2 ends mid-turn/.test(p.message) && p.severity === 'note')).toBe(true)
  })

  it('notes, as a crash leaves them, an open last turn and its calls that never started, and calls nothing damage', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: '/repo' })
    appendTurn(session, 1, 'one')
    session.append('turn/start', { turn: 2 })
    session.append('step/start', { turn: 2, step: 1 })
    const asked = session.append('assistant/message', {
      turn: 2,
      step: 1,
      message: { role: 'assistant', content: [{ type: 'tool-call', id: 'late', name: 'bash', arguments: '{}' }] },
    })
    const problems = verifyEvents(session.header, [...session.events])
    expect(problems.filter(isDamage)).toEqual([])
    expect(problems).toContainEqual({
      seq: asked.seq,
      message: 'tool call late has no result yet; `rein --resume` records that it never ran',
      severity: 'note',
    })
  })

  it('runs extra checks after its own and sorts every problem by seq', async () => {
    const { header, events } = await clean()
    const problems = await verifySession({ header, events }, [() => [{ seq: 5, message: 'request 5 differs' }], () => [{ seq: 1, message: 'x' }]])
    expect(problems.map((p) => p.seq)).toEqual([1, 5])
  })
})
