import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/session/events.js'
import { sessionDirectory } from '../../src/web/directories.js'
import { sessionFigures, stepFigures } from '../../src/web/figures.js'
import { turnEndAtOrAfter } from '../../src/web/routes-write.js'
import { allowedHosts } from '../../src/web/server.js'
import { sameSecret } from '../../src/web/guard.js'

let seq = 0
function ev(type: string, data: Record<string, unknown>, time = 0): SessionEvent {
  return { seq: seq++, time, type, data } as unknown as SessionEvent
}
const usage = (inputUncached: number, inputCacheRead: number, output: number) => ({ inputUncached, inputCacheRead, output, reasoning: 0 })

describe('per-step figures', () => {
  it('price each response at the model of the latest request header, and keep cache hits apart', () => {
    seq = 0
    const events = [
      ev('request/header', { config: { model: 'a' } }),
      ev('turn/start', { turn: 1 }),
      ev('request/sent', { turn: 1, step: 1 }),
      ev('assistant/message', { turn: 1, step: 1, message: { content: [] }, usage: usage(100, 300, 10) }),
      ev('request/header', { config: { model: 'b' } }),
      ev('request/sent', { turn: 1, step: 2 }),
      ev('assistant/message', { turn: 1, step: 2, message: { content: [] }, usage: usage(0, 0, 5) }),
      ev('turn/end', { turn: 1, reason: 'completed' }),
    ]
    const price = (model: string, u: { output: number }) => (model === 'a' ? 1 : 10) * u.output
    const steps = stepFigures(events, price)
    expect(steps.map((s) => [s.model, s.turn, s.step, s.promptTokens, s.cachedTokens, s.outputTokens, s.cost, s.cacheHitShare])).toEqual([
      ['a', 1, 1, 400, 300, 10, 10, 0.75],
      ['b', 1, 2, 0, 0, 5, 50, 0],
    ])
    const session = sessionFigures(events, price)
    expect(session).toEqual({ model: 'b', cost: 60, state: 'idle', cacheHitShare: 0.75 })
  })

  it('call a session with an open turn open, one closed as interrupted interrupted, and report no share before any response', () => {
    seq = 0
    expect(sessionFigures([ev('turn/start', { turn: 1 })], () => 0)).toEqual({ model: '', cost: 0, state: 'open' })
    seq = 0
    const closed = sessionFigures([ev('turn/start', { turn: 1 }), ev('turn/end', { turn: 1, reason: 'interrupted' })], () => 0)
    expect(closed.state).toBe('interrupted')
  })
})

describe('forking at a message', () => {
  seq = 0
  const events = [
    ev('context/message', {}),
    ev('turn/start', { turn: 1 }),
    ev('user/message', {}),
    ev('assistant/message', {}),
    ev('turn/end', { turn: 1 }),
    ev('turn/start', { turn: 2 }),
    ev('user/message', {}),
  ]
  it('cuts at the end of the message’s turn, since a fork may not cut inside one', () => {
    expect(turnEndAtOrAfter(events, 2)).toBe(4)
    expect(turnEndAtOrAfter(events, 4)).toBe(4)
  })
  it('cuts right at a message outside any turn', () => {
    expect(turnEndAtOrAfter(events, 0)).toBe(0)
  })
  it('refuses a message in the turn still running', () => {
    expect(turnEndAtOrAfter(events, 6)).toBeUndefined()
  })
})

describe('the directory a page asks for', () => {
  const root = mkdtempSync(join(tmpdir(), 'rein-web-dirs-'))
  const work = join(root, 'work')
  const home = join(root, 'home')
  mkdirSync(join(work, 'app', 'src'), { recursive: true })
  mkdirSync(join(root, 'secret'))
  mkdirSync(home)
  symlinkSync(join(root, 'secret'), join(work, 'escape'))

  it('resolves relative paths from the workspace and accepts folders inside it', () => {
    expect(sessionDirectory(work, 'app/src', home)).toBe(join(work, 'app', 'src'))
    expect(sessionDirectory(work, work, home)).toBe(work)
  })
  it('refuses a path outside the workspace, by .. or by symlink, with one sentence', () => {
    expect(() => sessionDirectory(work, '../secret', home)).toThrow(/^Refused: \.\.\/secret is outside the workspace .*\.$/)
    expect(() => sessionDirectory(work, 'escape', home)).toThrow(/outside the workspace/)
  })
  it('refuses a missing path, a file, a NUL and an empty answer', () => {
    expect(() => sessionDirectory(work, 'nope', home)).toThrow(/is not a directory/)
    expect(() => sessionDirectory(work, 'a\0b', home)).toThrow(/NUL/)
    expect(() => sessionDirectory(work, '  ', home)).toThrow(/Give the directory/)
    expect(() => sessionDirectory(work, 42, home)).toThrow(/Give the directory/)
  })
})

describe('the Host header', () => {
  it('may name loopback by any of its names on the bound port only', () => {
    expect(allowedHosts('127.0.0.1', 3080)).toEqual(['127.0.0.1:3080', 'localhost:3080', '[::1]:3080'])
  })
  it('must name the bound address exactly for another address', () => {
    expect(allowedHosts('192.168.1.5', 80)).toEqual(['192.168.1.5:80'])
  })
})

describe('the token check', () => {
  it('accepts only the exact token', () => {
    expect(sameSecret('abc', 'abc')).toBe(true)
    expect(sameSecret('abd', 'abc')).toBe(false)
    expect(sameSecret('ab', 'abc')).toBe(false)
    expect(sameSecret(undefined, 'abc')).toBe(false)
  })
})
