import type { EventType, SessionEvent } from '../../src/session/events.js'

/** The events of one type, in log order, narrowed to that type. */
export function eventsOf<T extends EventType>(events: readonly SessionEvent[], type: T): SessionEvent<T>[] {
  return events.filter((e): e is SessionEvent<T> => e.type === type)
}

/** The first event of one type; throws a sentence naming the type when the log has none. */
export function firstOf<T extends EventType>(events: readonly SessionEvent[], type: T): SessionEvent<T> {
  const found = events.find((e): e is SessionEvent<T> => e.type === type)
  if (!found) throw new Error(`the log has no ${type} event`)
  return found
}
