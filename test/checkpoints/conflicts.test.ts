import { describe, expect, it } from 'vitest'
import type { EventDataMap, EventType, SessionEvent } from '../../src/session/events.js'
import { findConflicts, knownContent } from '../../src/checkpoints/conflicts.js'
import type { ContentChange } from '../../src/checkpoints/tree-diff.js'
import { parseRawDiff } from '../../src/checkpoints/tree-diff.js'

function log(...entries: [EventType, unknown][]): SessionEvent[] {
  return entries.map(([type, data], seq) => ({ seq, time: 0, type, data }) as SessionEvent)
}
const e = <T extends EventType>(type: T, data: EventDataMap[T]): [EventType, unknown] => [type, data]
const change = (path: string, was: string | null, now: string | null): ContentChange => ({
  path,
  kind: was === null ? 'added' : now === null ? 'deleted' : 'modified',
  was,
  now,
})

describe('conflicts between a restore and what Rein last wrote', () => {
  const events = log(
    e('checkpoint/created', { turn: 1, step: 1, commit: 'c1', files: 2 }),
    e('checkpoint/changes', {
      turn: 1,
      step: 1,
      paths: [{ path: 'a', kind: 'modified' }, { path: 'gone', kind: 'deleted' }],
      after: [{ path: 'a', id: 'a2' }, { path: 'gone', id: null }],
    }),
    e('checkpoint/changes', { turn: 1, step: 2, paths: [{ path: 'a', kind: 'modified' }], after: [{ path: 'a', id: 'a3' }] }),
  )

  it('a path still holding what the agent last wrote is no conflict', () => {
    expect(findConflicts([change('a', 'a1', 'a3')], knownContent(events, 0))).toEqual([])
  })

  it('a path edited after the agent wrote it is a conflict', () => {
    expect(findConflicts([change('a', 'a1', 'user')], knownContent(events, 0))).toEqual(['a'])
  })

  it('a file the agent deleted that someone made again is a conflict', () => {
    expect(findConflicts([change('gone', 'g1', 'recreated')], knownContent(events, 0))).toEqual(['gone'])
  })

  it('a path the agent never touched yet differing from the target was changed by someone else', () => {
    expect(findConflicts([change('readme', 'r1', 'r2'), change('extra', null, 'x')], knownContent(events, 0))).toEqual(['extra', 'readme'])
  })

  it('only events from the given seq on count', () => {
    expect(findConflicts([change('a', 'a1', 'a2')], knownContent(events, 2))).toEqual(['a'])
    expect(findConflicts([change('a', 'a1', 'a3')], knownContent(events, 2))).toEqual([])
  })

  it('a path an older log listed without content ids is taken as Rein’s own', () => {
    const old = log(e('checkpoint/changes', { turn: 1, step: 1, paths: [{ path: 'a', kind: 'modified' }] }))
    expect(findConflicts([change('a', 'a1', 'anything')], knownContent(old, 0))).toEqual([])
  })

  it('what a rewind put back counts as written by Rein', () => {
    const rewound = log(e('checkpoint/rewind', { turn: 1, target: 't', before: 'b', after: [{ path: 'a', id: 'a1' }] }))
    expect(findConflicts([change('a', 'x', 'a1')], knownContent(rewound, 0))).toEqual([])
  })
})

describe('parseRawDiff', () => {
  it('reads modes, content ids and kinds, with an all-zero id as absence', () => {
    const zero = '0'.repeat(40)
    const a = 'a'.repeat(40)
    const b = 'b'.repeat(40)
    const raw = Buffer.from(
      [`:100644 100755 ${a} ${b} M`, 'dir/x y.txt', `:000000 120000 ${zero} ${b} A`, 'link', `:100644 000000 ${a} ${zero} D`, 'old'].join('\0') + '\0',
    )
    expect(parseRawDiff(raw)).toEqual([
      { path: 'dir/x y.txt', kind: 'modified', was: a, now: b, nowMode: '100755' },
      { path: 'link', kind: 'added', was: null, now: b, nowMode: '120000' },
      { path: 'old', kind: 'deleted', was: a, now: null },
    ])
  })
})
