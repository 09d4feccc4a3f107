import { describe, expect, it } from 'vitest'
import type { EventDataMap, EventType, SessionEvent } from '../../src/session/events.js'
import { checkpointTurns } from '../../src/checkpoints/turns.js'

/** Builds a log from (type, data) pairs, numbering seqs from 0. */
function log(...entries: [EventType, unknown][]): SessionEvent[] {
  return entries.map(([type, data], seq) => ({ seq, time: 0, type, data }) as SessionEvent)
}
const e = <T extends EventType>(type: T, data: EventDataMap[T]): [EventType, unknown] => [type, data]
const prompt = (id: string, text: string) => e('user/message', { id, content: [{ type: 'text', text }], source: { kind: 'user' } })

describe('checkpointTurns', () => {
  it('lists one entry per turn with its start seq, first prompt line, first snapshot and changed paths', () => {
    const turns = checkpointTurns(
      log(
        e('turn/start', { turn: 1 }),
        e('step/start', { turn: 1, step: 1 }),
        prompt('p1', '\n  fix the build  \nplease'),
        e('checkpoint/created', { turn: 1, step: 1, commit: 'aaa', files: 3 }),
        e('checkpoint/changes', { turn: 1, step: 1, paths: [{ path: 'a.txt', kind: 'modified' }, { path: 'b.txt', kind: 'added' }] }),
        e('step/end', { turn: 1, step: 1 }),
        e('step/start', { turn: 1, step: 2 }),
        e('checkpoint/created', { turn: 1, step: 2, commit: 'bbb', files: 4 }),
        e('checkpoint/changes', { turn: 1, step: 2, paths: [{ path: 'c.txt', kind: 'added' }, { path: 'b.txt', kind: 'deleted' }] }),
        e('step/end', { turn: 1, step: 2 }),
        e('turn/end', { turn: 1, reason: 'completed' }),
        e('turn/start', { turn: 2 }),
        prompt('p2', 'just answer'),
        e('turn/end', { turn: 2, reason: 'completed' }),
      ),
    )
    expect(turns).toEqual([
      {
        turn: 1,
        startSeq: 0,
        prompt: 'fix the build',
        snapshot: 'aaa',
        changes: [
          { path: 'a.txt', kind: 'modified' },
          { path: 'b.txt', kind: 'deleted' },
          { path: 'c.txt', kind: 'added' },
        ],
      },
      { turn: 2, startSeq: 11, prompt: 'just answer', changes: [] },
    ])
  })

  it('skips a failed snapshot and takes the first one that has a commit', () => {
    const [turn] = checkpointTurns(
      log(
        e('turn/start', { turn: 3 }),
        e('checkpoint/created', { turn: 3, step: 1, error: 'Checkpoint failed: disk full.' }),
        e('checkpoint/created', { turn: 3, step: 2, commit: 'ccc', files: 1 }),
        e('turn/end', { turn: 3, reason: 'completed' }),
      ),
    )
    expect(turn.snapshot).toBe('ccc')
  })

  it('gives a turn no prompt opened an empty prompt, and a turn a crash left open its changes so far', () => {
    const turns = checkpointTurns(
      log(
        e('turn/start', { turn: 1 }),
        e('checkpoint/created', { turn: 1, step: 1, commit: 'ddd', files: 1 }),
        e('checkpoint/changes', { turn: 1, step: 1, paths: [{ path: 'x', kind: 'added' }] }),
      ),
    )
    expect(turns).toEqual([{ turn: 1, startSeq: 0, prompt: '', snapshot: 'ddd', changes: [{ path: 'x', kind: 'added' }] }])
  })

  it('ignores checkpoint events that name another turn or sit outside any turn', () => {
    const turns = checkpointTurns(
      log(
        e('checkpoint/changes', { turn: 1, step: 1, paths: [{ path: 'stray', kind: 'added' }] }),
        e('turn/start', { turn: 2 }),
        e('checkpoint/created', { turn: 1, step: 1, commit: 'old', files: 1 }),
        e('turn/end', { turn: 2, reason: 'completed' }),
      ),
    )
    expect(turns).toEqual([{ turn: 2, startSeq: 1, prompt: '', changes: [] }])
  })
})
