import { describe, expect, it } from 'vitest'
import { TranscriptModel } from '../../web/src/transcript.js'

describe('the page’s transcript of what a step changed', () => {
  it('puts the changed files after the step’s last tool card, though they were logged before its result', () => {
    const m = new TranscriptModel()
    m.apply({ seq: 0, time: 0, type: 'tool/call', data: { turn: 1, step: 2, callId: 'c1', name: 'bash', arguments: '{}' } })
    m.apply({ seq: 1, time: 0, type: 'checkpoint/changes', data: { turn: 1, step: 2, paths: [{ path: 'a.txt', kind: 'modified' }] } })
    m.apply({ seq: 2, time: 0, type: 'tool/result', data: { turn: 1, step: 2, callId: 'c1', content: [], isError: false } })
    m.apply({ seq: 3, time: 0, type: 'step/end', data: { turn: 1, step: 2 } })
    expect(m.items.map((i) => i.kind)).toEqual(['tool', 'changes'])
    expect(m.items[1]).toMatchObject({ kind: 'changes', turn: 1, step: 2, paths: [{ path: 'a.txt', kind: 'modified' }] })
  })

  it('ignores a listing with no paths', () => {
    const m = new TranscriptModel()
    m.apply({ seq: 0, time: 0, type: 'checkpoint/changes', data: { turn: 1, step: 1, paths: [] } })
    m.apply({ seq: 1, time: 0, type: 'step/end', data: { turn: 1, step: 1 } })
    expect(m.items).toEqual([])
  })
})
