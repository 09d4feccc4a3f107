import { describe, expect, it } from 'vitest'
import { rewindKillLoop } from '../../bench/rewind-kill.bench.mjs'

interface Figures {
  kills: number
  states: { untouched: number; restored: number; partial: number }
  printStates: { unchanged: number; changed: number }
  recoveries: number
  byPhase: Record<string, number>
  problems: string[]
}

/** A small seeded generator, so a failing run can be repeated (the seed is in the failure message). */
function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe('SIGKILL of rein rewind, rein rewind --undo and rein -p at many points', () => {
  it('after every kill the workspace is as before, as after, or one rein rewind --undo away from before (by content hash and mode)', async () => {
    // REWIND_KILL_SEED repeats a run (the seed is printed on failure); otherwise each run tries new kill points.
    const seed = Number(process.env.REWIND_KILL_SEED ?? Date.now() % 100_000)
    const f = (await rewindKillLoop({ rewinds: 6, undos: 2, prints: 2, files: 100, random: seeded(seed) })) as Figures
    expect(f.problems, `seed ${seed}`).toEqual([])
    expect(f.kills).toBe(10)
    expect(f.recoveries).toBe(f.kills)
  }, 240_000)
})
