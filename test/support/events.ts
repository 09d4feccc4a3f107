import type { EventType, SessionEvent } from '../../src/session/events.js'

/** An event of one of the types `T`; the same type as `SessionEvent<T>` once `T` is known, and usable while it is generic. */
export type EventOf<T extends EventType> = Extract<SessionEvent, { type: T }>

/** The events of one type, in log order, narrowed to that type. */
export function eventsOf<T extends EventType>(events: readonly SessionEvent[], type: T): EventOf<T>[] {
  return events.filter((e): e is EventOf<T> => e.type === type)
}

/** The first event of one type; throws a sentence naming the type when the log has none. */
export function firstOf<T extends EventType>(events: readonly SessionEvent[], type: T): EventOf<T> {
  const found = events.find((e): e is EventOf<T> => e.type === type)
  if (!found) throw new Error(`the log has no ${type} event`)
  return found
}
