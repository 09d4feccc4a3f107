import type { SessionStore, SidecarAccess } from '../store/store.js'
import { isKnownType, isSurfaceType, type SessionEvent, type SessionHeader, type SurfaceEvent } from './events.js'
import { checkHeader, eventProblem, type SessionLog } from './load.js'
import { deepFreeze } from './plain-json.js'
import { heldFrom, parseSidecar, sha256, type SidecarBody } from './sidecar.js'
import { sparseLog } from './sparse-log.js'
import { Surface } from './surface.js'

/** Thrown inside a sidecar read to give up on it; the caller then reads the whole log. */
class Disagrees extends Error {}

/**
 * Reads a session from its resume sidecar and the log's tail after it: O(surface + tail), not O(log). Returns
 * undefined, having changed nothing, when the store keeps no sidecar or anything about it disagrees with the log:
 * no sidecar, a truncated or altered one, one of another session, a log shorter than what it covers, a header or a
 * last covered line that is not byte-for-byte what it recorded, held events that are malformed or miss what a
 * running agent needs, a tail that does not follow on from it. The caller then reads the whole log, which is the
 * truth. The result's `events` is a sparse log (see `sparse-log.ts`).
 */
export async function readSessionLogFromSidecar(store: SessionStore, id: string): Promise<SessionLog | undefined> {
  const access = store.sidecars
  if (!access) return undefined
  try {
    return await readWithSidecar(store, access, id)
  } catch {
    // Any failure here (a disagreement, an unreadable sidecar, a damaged tail) falls back to the whole log, whose own
    // read reports real damage with the file and line.
    return undefined
  }
}

async function readWithSidecar(store: SessionStore, access: SidecarAccess, id: string): Promise<SessionLog | undefined> {
  const text = await access.read(id)
  if (text === undefined) return undefined
  const body = parseSidecar(text, id)
  if (typeof body === 'string') return undefined
  const location = await store.location(id)
  const header = await agreedHeader(access, id, body, location)
  const { surface, held } = heldState(body)

  const tail: SessionEvent[] = []
  let next = body.covers.events
  const end = await access.readFrom(id, { bytes: body.covers.bytes, records: body.covers.events + 1 }, (value) => {
    if (eventProblem(value, next, surface)) throw new Disagrees()
    const event = deepFreeze(value as SessionEvent)
    tail.push(event)
    if (isSurfaceType(event.type)) surface.apply(event as SurfaceEvent)
    next++
  })
  const { events: _events, ...coverage } = body.covers
  return {
    header,
    events: sparseLog([...held, ...tail], next),
    surface,
    end,
    location,
    sidecar: { ...coverage, events: body.covers.events, segments: body.segments },
  }
}

/** The log's header, after checking that its first line and the last line the sidecar covers are as recorded. */
async function agreedHeader(access: SidecarAccess, id: string, body: SidecarBody, location: string): Promise<SessionHeader> {
  const { covers } = body
  if (covers.events === 0 || (await access.logSize(id)) < covers.bytes) throw new Disagrees()
  const head = await access.logBytes(id, 0, covers.headerBytes + 1)
  if (head.length !== covers.headerBytes + 1 || head[covers.headerBytes] !== 10) throw new Disagrees()
  const headerLine = head.subarray(0, covers.headerBytes)
  if (sha256(headerLine) !== covers.header) throw new Disagrees()
  // The last covered line with the newline before it and its own.
  const last = await access.logBytes(id, covers.bytes - covers.lastBytes - 2, covers.bytes)
  if (last.length !== covers.lastBytes + 2 || last[0] !== 10 || last[last.length - 1] !== 10) throw new Disagrees()
  if (sha256(last.subarray(1, -1)) !== covers.last) throw new Disagrees()
  return checkHeader(JSON.parse(headerLine.toString('utf8')), id, location)
}

/**
 * The sidecar's surface and held events, checked: each held event is a well-formed envelope; the surface names held
 * surface events, each once; and every event of the open step is held (repair reads them; see `heldFrom`).
 */
function heldState(body: SidecarBody): { surface: Surface; held: SessionEvent[] } {
  const bySeq = new Map<number, SessionEvent>()
  let lastTurnEnd = -1
  let lastStepStart = -1
  for (const value of body.held) {
    const event = deepFreeze(value)
    if (typeof event.type !== 'string' || typeof event.time !== 'number') throw new Disagrees()
    if (event.data === null || typeof event.data !== 'object') throw new Disagrees()
    if (!isKnownType(event.type) && event.ignorable !== true) throw new Disagrees()
    if (isSurfaceType(event.type) !== (event.surfaceOp !== undefined)) throw new Disagrees()
    bySeq.set(event.seq, event)
    if (event.type === 'turn/end') lastTurnEnd = event.seq
    if (event.type === 'step/start') lastStepStart = event.seq
  }
  for (let seq = heldFrom(lastTurnEnd, lastStepStart); seq < body.covers.events; seq++) if (!bySeq.has(seq)) throw new Disagrees()
  const entries: SurfaceEvent[] = []
  const seen = new Set<number>()
  for (const seq of body.surface) {
    const event = bySeq.get(seq)
    if (!event || !isSurfaceType(event.type) || seen.has(seq)) throw new Disagrees()
    seen.add(seq)
    entries.push(event as SurfaceEvent)
  }
  return { surface: Surface.of(entries), held: [...bySeq.values()] }
}
