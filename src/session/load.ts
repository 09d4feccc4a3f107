import { damagedLine, SessionError } from '../store/errors.js'
import type { ReadEnd, SessionStore } from '../store/store.js'
import { isKnownType, isSurfaceEvent, isSurfaceType, SURFACE_TYPES, type SessionEvent, type SessionHeader } from './events.js'
import { deepFreeze } from './plain-json.js'
import type { SidecarCoverage } from './sidecar.js'
import { Surface } from './surface.js'

/** The format version this Rein reads and writes. */
export const LOG_VERSION = 1

/** A session log as read from its store: checked, frozen, its surface built; not yet repaired. */
export interface SessionLog {
  header: SessionHeader
  events: SessionEvent[]
  surface: Surface
  /** Where the read stopped; pass to `SessionStore.openAppend` to continue the log. */
  end: ReadEnd
  /** The file (or store location) named in errors. */
  location: string
  /** Set when the log was read from its resume sidecar and tail: what the sidecar covered (see `sidecar.ts`). */
  sidecar?: SidecarCoverage
}

/**
 * Reads and checks a session without changing it: the header must be version 1 and name `id`; every event needs
 * the next seq, a finite time, a known type (or `ignorable: true`) and a valid surface op. A torn last line is
 * dropped by the store. Any other damage throws a `SessionError` naming the file and line.
 */
export async function readSessionLog(store: SessionStore, id: string): Promise<SessionLog> {
  const location = await store.location(id)
  let header: SessionHeader | undefined
  const events: SessionEvent[] = []
  const surface = new Surface()
  const end = await store.read(id, (value, line) => {
    if (line === 1) {
      header = checkHeader(value, id, location)
      return
    }
    const problem = eventProblem(value, events.length, surface)
    if (problem) throw damagedLine(location, line, problem)
    const event = deepFreeze(value as SessionEvent)
    events.push(event)
    if (isSurfaceEvent(event)) surface.apply(event)
  })
  if (!header) throw damagedLine(location, 1, 'is missing or torn, so the session has no header')
  return { header, events, surface, end, location }
}

export function checkHeader(value: unknown, id: string, location: string): SessionHeader {
  const header = value as Partial<SessionHeader> | null
  if (header === null || typeof header !== 'object' || header.type !== 'session') {
    throw damagedLine(location, 1, 'is not a session header')
  }
  if (header.version !== LOG_VERSION) {
    throw new SessionError(
      'version',
      `session file ${location} has format version ${JSON.stringify(header.version)}, but this Rein reads version ${LOG_VERSION}; open it with the Rein that wrote it or upgrade Rein.`,
    )
  }
  if (header.id !== id) throw damagedLine(location, 1, `names session ${JSON.stringify(header.id)}, not ${id}`)
  if (typeof header.cwd !== 'string' || typeof header.createdAt !== 'number') {
    throw damagedLine(location, 1, 'is a session header without a cwd or createdAt')
  }
  return deepFreeze(header as SessionHeader)
}

/**
 * What is wrong with a parsed event record that should have seq `seq`, or undefined when it is a well-formed event
 * the surface accepts. Shared by the loader and `verifyEvents`.
 */
export function eventProblem(value: unknown, seq: number, surface: Surface): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'is not an event object'
  const event = value as Partial<SessionEvent> & { type?: unknown }
  if (event.seq !== seq) return `has seq ${JSON.stringify(event.seq)} where ${seq} was expected`
  if (typeof event.time !== 'number' || !Number.isFinite(event.time)) return 'has no valid time'
  if (typeof event.type !== 'string') return 'has no event type'
  if (event.data === null || typeof event.data !== 'object' || Array.isArray(event.data)) return 'has no data object'
  if (event.ignorable !== undefined && event.ignorable !== true) return 'has an ignorable flag that is not true'
  if (!isKnownType(event.type) && event.ignorable !== true) {
    return `has the unknown event type "${event.type}" and is not marked ignorable (written by a newer Rein or a plugin)`
  }
  if (isSurfaceType(event.type)) {
    if (event.surfaceOp === undefined) return `is a ${event.type} without the surfaceOp every surface event carries`
    const problem = surface.problem(event.surfaceOp)
    if (problem) return `has an invalid surfaceOp: ${problem}`
  } else if (event.surfaceOp !== undefined) {
    return `is a ${event.type} with a surfaceOp, which only ${SURFACE_TYPES.join(', ')} may carry`
  }
  return undefined
}
