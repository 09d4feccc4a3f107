import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/session/events.js'
import { undoableFor } from '../../src/web/routes-rewind.js'

// "Undo rewind" on the page offers what `rewind-undo` would undo, an interrupted restore included (docs/web.md).

const point = (seq: number): SessionEvent => ({
  seq,
  time: 0,
  type: 'checkpoint/undo-point',
  data: { of: 'rewind', turn: 2, target: 'a'.repeat(40), before: 'b'.repeat(40), paths: [], after: [], token: 't', conversation: true },
})

describe('the undo the web page offers', () => {
  it('offers to undo a rewind that was interrupted after its undo point was logged', () => {
    expect(undoableFor([point(0)])).toEqual({ seq: 0, turn: 2, interrupted: true })
  })

  it('offers nothing when the log holds no rewind', () => {
    expect(undoableFor([])).toBeNull()
  })
})
