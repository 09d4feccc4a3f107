import { describe, expect, it } from 'vitest'
import { killLoop } from '../../bench/kill-loop.mjs'

describe('SIGKILL at random points', () => {
  it('20 kills of a multi-step session with slow tools: every log resumes to an answer and verifies, losing no event', async () => {
    const f = await killLoop({ kills: 20 })
    expect(f.problems).toEqual([])
    expect(f.kills).toBe(20)
    expect(f.resumed).toBe(f.logs)
    expect(f.verified).toBe(f.logs)
    expect(f.eventsLost).toBe(0)
    expect(f.logs).toBeGreaterThan(0)
  }, 300_000)
})
