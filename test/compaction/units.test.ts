import { describe, expect, it } from 'vitest'
import { chooseShadow, chooseShadowKeepingUnits, estimateTokens, units } from '../../src/compaction/units.js'
import { nothingToCompact } from '../../src/compaction/summary-text.js'
import type { SurfaceEvent } from '../../src/session/events.js'
import { projectEvent } from '../../src/session/projection.js'
import { Session } from '../../src/session/session.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import { appendToolStep } from './support.js'

/** A surface of one turn: a prompt, a step with two calls, a step with one call, a context message, an answer. */
async function mixedSurface(): Promise<readonly SurfaceEvent[]> {
  const session = await Session.create(new MemoryStore(), { cwd: process.cwd() })
  session.append('turn/start', { turn: 1 })
  session.append('user/message', { id: 'u1', content: [{ type: 'text', text: 'Fix the parser.' }], source: { kind: 'user' } })
  appendToolStep(session, 1, 1, 'a', ['first result '.repeat(40), 'second result '.repeat(40)])
  appendToolStep(session, 1, 2, 'b', ['third result '.repeat(40)])
  session.append('context/message', { id: 'c1', content: [{ type: 'text', text: 'a reminder '.repeat(20) }], source: { kind: 'runtime' } })
  session.append('assistant/message', { turn: 1, step: 3, message: { role: 'assistant', content: [{ type: 'text', text: 'done '.repeat(30) }] } })
  session.append('turn/end', { turn: 1, reason: 'completed' })
  return session.surface()
}

const total = (surface: readonly SurfaceEvent[]): number => surface.reduce((n, e) => n + estimateTokens(projectEvent(e)), 0)

describe('compaction units', () => {
  it('groups an assistant message with the results of the calls it made and leaves every other entry alone', async () => {
    const surface = await mixedSurface()
    const shape = units(surface).map((u) => surface.slice(u.first, u.last + 1).map((e) => e.type))
    expect(shape).toEqual([
      ['user/message'],
      ['assistant/message', 'tool/result', 'tool/result'],
      ['assistant/message', 'tool/result'],
      ['context/message'],
      ['assistant/message'],
    ])
  })

  it('counts each unit as the estimated tokens of its projected messages', async () => {
    const surface = await mixedSurface()
    const all = units(surface)
    expect(all.reduce((n, u) => n + u.tokens, 0)).toBe(total(surface))
    expect(all[1].tokens).toBe([1, 2, 3].reduce((n, i) => n + estimateTokens(projectEvent(surface[i])), 0))
  })

  it('estimates tokens as UTF-8 bytes divided by four, rounded up', () => {
    expect(estimateTokens('abcd')).toBe(1)
    expect(estimateTokens('abcde')).toBe(2)
    expect(estimateTokens('ééé')).toBe(2)
    expect(estimateTokens(null)).toBe(0)
  })
})

describe('choosing what to shadow', () => {
  it('never ends the shadow between a tool call and its results, whatever share is kept', async () => {
    const surface = await mixedSurface()
    for (let keep = 0; keep <= total(surface) + 10; keep += 7) {
      const shadow = chooseShadow(surface, keep)
      if (!shadow) continue
      const next = surface[shadow.end + 1]
      expect(next?.type, `keep ${keep} ends the shadow at index ${shadow.end}`).not.toBe('tool/result')
      const last = surface[shadow.end]
      const openCall = last.type === 'assistant/message' && last.data.message.content.some((b) => b.type === 'tool-call')
      expect(openCall, `keep ${keep} shadows a call without its results`).toBe(false)
    }
  })

  it('keeps at least the asked share of the most recent surface, and no whole unit more than it needs', async () => {
    const surface = await mixedSurface()
    for (let keep = 1; keep < total(surface); keep += 11) {
      const shadow = chooseShadow(surface, keep)
      if (!shadow) continue
      const keptUnits = units(surface).filter((u) => u.first > shadow.end)
      const kept = keptUnits.reduce((n, u) => n + u.tokens, 0)
      expect(kept).toBeGreaterThanOrEqual(keep)
      expect(kept - keptUnits[0].tokens).toBeLessThan(keep)
    }
  })

  it('shadows from the oldest entry and reports the tokens it shadows', async () => {
    const surface = await mixedSurface()
    const shadow = chooseShadow(surface, 1)
    expect(shadow).not.toBeNull()
    expect(shadow!.end).toBe(surface.length - 2)
    const shadowedTokens = surface.slice(0, shadow!.end + 1).reduce((n, e) => n + estimateTokens(projectEvent(e)), 0)
    expect(shadow!.tokens).toBe(shadowedTokens)
  })

  it('always keeps the most recent unit, even when asked to keep nothing', async () => {
    const surface = await mixedSurface()
    expect(chooseShadow(surface, 0)?.end).toBe(surface.length - 2)
  })

  it('returns null when keeping the asked share leaves nothing older to shadow', async () => {
    const surface = await mixedSurface()
    expect(chooseShadow(surface, total(surface))).toBeNull()
    expect(chooseShadow(surface, total(surface) * 10)).toBeNull()
    expect(chooseShadow([], 0)).toBeNull()
    expect(chooseShadow(surface.slice(0, 1), 0)).toBeNull()
  })

  it('treats a call whose results never follow as a unit of its own instead of reaching past other entries', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: process.cwd() })
    session.append('user/message', { id: 'u', content: [{ type: 'text', text: 'go' }], source: { kind: 'user' } })
    session.append('assistant/message', {
      turn: 1,
      step: 1,
      message: { role: 'assistant', content: [{ type: 'tool-call', id: 'lost', name: 'echo', arguments: '{}' }] },
    })
    session.append('user/message', { id: 'u2', content: [{ type: 'text', text: 'again' }], source: { kind: 'user' } })
    const surface = session.surface()
    expect(units(surface).map((u) => [u.first, u.last])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ])
  })

  it('a manual compaction keeps exactly the newest N units, one at the least, and shadows the rest', async () => {
    const surface = await mixedSurface()
    const all = units(surface)
    expect(chooseShadowKeepingUnits(surface, 1)).toEqual({ end: all[3].last, tokens: total(surface) - all[4].tokens, units: 4 })
    expect(chooseShadowKeepingUnits(surface, 0)?.units).toBe(4)
    expect(chooseShadowKeepingUnits(surface, 3)?.end).toBe(all[1].last)
    expect(chooseShadowKeepingUnits(surface, 5)).toBeNull()
    expect(chooseShadowKeepingUnits([], 1)).toBeNull()
  })
})

describe('why there is nothing to compact', () => {
  it('says it in numbers for each trigger', () => {
    expect(nothingToCompact({ units: 0, tokens: 0 }, { units: 1 })).toBe('Nothing to compact: the conversation is empty.')
    expect(nothingToCompact({ units: 1, tokens: 2310 }, { units: 1 })).toBe(
      'Nothing to compact: the conversation has 1 exchange (2,310 tokens), and the newest exchange is always kept.',
    )
    expect(nothingToCompact({ units: 2, tokens: 40 }, { units: 3 })).toBe(
      'Nothing to compact: the conversation has 2 exchanges (40 tokens), and keep=3 keeps the newest 3.',
    )
    expect(nothingToCompact({ units: 6, tokens: 90_000 }, { tokens: 150_000, ratio: 0.15, window: 1_000_000 })).toBe(
      'Nothing to compact: the conversation has 6 exchanges (90,000 tokens), all within the 150,000 tokens kept verbatim (compaction.keepRatio 0.15 of the 1,000,000-token window).',
    )
  })
})
