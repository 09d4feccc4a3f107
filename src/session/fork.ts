import { SessionError } from '../store/errors.js'
import type { SessionStore } from '../store/store.js'
import type { SessionEvent } from './events.js'
import { readSessionLog } from './load.js'
import { Session } from './session.js'

/**
 * Starts a new session holding copies of the source's events `0..atSeq` (inclusive), in the source's cwd, with a
 * header naming the parent and seq. `atSeq` defaults to the last event outside any turn. A seq inside a turn that
 * is still open at that point is refused: a fork never starts mid-turn. The source is read, never changed.
 */
export async function forkSession(store: SessionStore, sourceId: string, atSeq?: number): Promise<Session> {
  const source = await readSessionLog(store, sourceId)
  const at = atSeq ?? lastClosedSeq(source.events)
  if (at === undefined) {
    throw new SessionError('invalid-fork', `session ${sourceId} has no event outside a turn to fork at; let its first turn finish first.`)
  }
  if (!Number.isInteger(at) || at < 0 || at >= source.events.length) {
    throw new SessionError(
      'invalid-fork',
      `cannot fork session ${sourceId} at seq ${at}: its seqs run from 0 to ${source.events.length - 1}; pick one of those.`,
    )
  }
  const open = openTurnAt(source.events, at)
  if (open) {
    const closing = open.endSeq === undefined ? 'has not ended' : `ends at seq ${open.endSeq}`
    throw new SessionError(
      'invalid-fork',
      `cannot fork session ${sourceId} at seq ${at}: it is inside turn ${open.turn}, which starts at seq ${open.startSeq} and ${closing}; fork before seq ${open.startSeq} or at the turn's end.`,
    )
  }
  const fork = await Session.create(store, { cwd: source.header.cwd, parent: { id: sourceId, seq: at } })
  for (let seq = 0; seq <= at; seq++) fork.adopt(source.events[seq])
  await fork.flush()
  return fork
}

/** The turn open right after event `at`, with where it starts and (if it does) ends. */
function openTurnAt(
  events: readonly SessionEvent[],
  at: number,
): { turn: number; startSeq: number; endSeq?: number } | undefined {
  let open: { turn: number; startSeq: number } | undefined
  for (let seq = 0; seq <= at; seq++) {
    const event = events[seq]
    if (event.type === 'turn/start') open = { turn: event.data.turn, startSeq: seq }
    else if (event.type === 'turn/end') open = undefined
  }
  if (!open) return undefined
  const end = events.findIndex((event, seq) => seq > at && event.type === 'turn/end')
  return end === -1 ? open : { ...open, endSeq: end }
}

/** The last seq after which no turn is open, if any. */
function lastClosedSeq(events: readonly SessionEvent[]): number | undefined {
  let open = false
  let last: number | undefined
  for (const event of events) {
    if (event.type === 'turn/start') open = true
    else if (event.type === 'turn/end') open = false
    if (!open) last = event.seq
  }
  return last
}
