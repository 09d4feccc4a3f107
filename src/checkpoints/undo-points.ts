import type { EventDataMap, EventType, SessionEvent } from '../session/events.js'

/**
 * Undo points (docs/checkpoints.md, "After an interruption"): every restore of the code logs `checkpoint/undo-point`
 * (its `before` snapshot) and syncs the log before it touches a file, and logs `checkpoint/rewind` or
 * `checkpoint/rewind-undone` naming that point once it finished. A point nothing names was interrupted: the
 * workspace may be half restored, and `rein rewind --undo` restores its `before`.
 */

export type UndoPointData = EventDataMap['checkpoint/undo-point']

export interface UndoPoint {
  seq: number
  data: UndoPointData
}

/** What `rewind-undo` undoes next: a finished code rewind, or an interrupted restore (`point`). */
export interface Undoable {
  seq: number
  turn: number
  before: string
  /** Set when this is an interrupted restore: its undo point. */
  point?: UndoPointData
}

/**
 * The newest entry of the log an undo can restore: a `checkpoint/rewind` that restored code and no undo names, or an
 * interrupted restore's `checkpoint/undo-point` (no finished rewind or undo names it as its point, no undo undid it).
 */
export function latestUndoable(events: readonly SessionEvent[]): Undoable | undefined {
  const undone = new Set<number>()
  const finished = new Set<number>()
  for (const event of events) {
    if (event.type === 'checkpoint/rewind-undone') {
      undone.add(event.data.rewind)
      if (event.data.point !== undefined) finished.add(event.data.point)
    } else if (event.type === 'checkpoint/rewind' && event.data.point !== undefined) {
      finished.add(event.data.point)
    }
  }
  for (let seq = events.length - 1; seq >= 0; seq--) {
    const event = events[seq]
    if (undone.has(seq)) continue
    if (event.type === 'checkpoint/rewind' && event.data.before) return { seq, turn: event.data.turn, before: event.data.before }
    if (event.type === 'checkpoint/undo-point' && !finished.has(seq)) return { seq, turn: event.data.turn, before: event.data.before, point: event.data }
  }
  return undefined
}

/**
 * The latest undo point when its restore never finished: nothing was logged by a rewind or an undo after it. Reads
 * only the latest event of each type, so it works on a session resumed from its sidecar.
 */
export function interruptedRestore(session: { last<T extends EventType>(type: T): SessionEvent<T> | undefined }): UndoPoint | undefined {
  const point = session.last('checkpoint/undo-point')
  if (!point) return undefined
  const rewind = session.last('checkpoint/rewind')
  const undo = session.last('checkpoint/rewind-undone')
  if ((rewind && rewind.seq > point.seq) || (undo && undo.seq > point.seq)) return undefined
  return { seq: point.seq, data: point.data }
}

/** The one sentence that reports an interrupted restore, with the command that undoes it and the one that finishes it. */
export function interruptedNotice(sessionId: string, point: UndoPointData): string {
  const undo = `\`rein rewind ${sessionId} --undo\` (\`/rewind undo\` in the terminal UI)`
  if (point.of === 'undo') {
    return `Undoing the rewind to turn ${point.turn} in session ${sessionId} was interrupted part way, so some files may be back and others not: ${undo} puts every file back as it was before that undo, and running it once more then finishes undoing the rewind.`
  }
  const finish = `rein rewind ${sessionId} --to ${point.turn}${point.conversation ? '' : ' --code'}`
  return `The rewind of session ${sessionId} to turn ${point.turn} was interrupted part way, so some files may be put back and others not: ${undo} puts every file back as it was before it, and \`${finish}\` finishes it.`
}
