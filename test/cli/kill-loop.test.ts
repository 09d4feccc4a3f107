import { describe, expect, it } from 'vitest'
import { killLoop } from '../../bench/kill-loop.mjs'

describe('SIGKILL at random points', () => {
  it('20 kills of a multi-step session with slow tools: every log resumes to an answer and verifies, losing no event', async () => {
    // Two loops of 10 side by side: each iteration mostly waits (the tools' sleeps, start-ups), and each loop has its
    // own folders and mock model.
    const loops = await Promise.all([killLoop({ kills: 10 }), killLoop({ kills: 10 })])
    const f = loops.reduce((a, b) => ({
      kills: a.kills + b.kills,
      logs: a.logs + b.logs,
      resumed: a.resumed + b.resumed,
      verified: a.verified + b.verified,
      eventsLost: a.eventsLost + b.eventsLost,
      problems: [...a.problems, ...b.problems],
    }))
    expect(f.problems).toEqual([])
    expect(f.kills).toBe(20)
    expect(f.resumed).toBe(f.logs)
    expect(f.verified).toBe(f.logs)
    expect(f.eventsLost).toBe(0)
    expect(f.logs).toBeGreaterThan(0)
  }, 300_000)
})
