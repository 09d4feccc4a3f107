import type { SessionStore } from '../store/store.js'
import { isSurfaceType, type SessionEvent, type SurfaceEvent } from './events.js'
import type { SessionLog } from './load.js'
import { heldFrom, parseSidecar, sha256 } from './sidecar.js'
import { readSessionLogFromSidecar } from './sidecar-load.js'
import { Surface } from './surface.js'

/** A disagreement between a session's resume sidecar and its log. */
export interface SidecarProblem {
  message: string
  /**
   * `note` when a resume would notice it and read the whole log instead (nothing wrong reaches the model); `damage`
   * when a resume would trust a sidecar whose content differs from the log.
   */
  severity: 'note' | 'damage'
}

/**
 * Checks the resume sidecar of a session against its log, read in full (`log`): the sidecar's own digest, that the
 * log still holds the bytes it covers with the digest of every segment, and that its held events and surface are the
 * log's. Empty when the store keeps no sidecar for it or the two agree.
 */
export async function sidecarProblems(store: SessionStore, log: SessionLog): Promise<SidecarProblem[]> {
  const access = store.sidecars
  if (!access) return []
  const id = log.header.id
  const text = await access.read(id)
  if (text === undefined) return []
  const where = await access.location(id)
  const body = parseSidecar(text, id)
  const stale = (reason: string): SidecarProblem[] => [
    { severity: 'note', message: `the resume sidecar ${where} disagrees with the log (${reason}); resume ignores it and reads the whole log` },
  ]
  if (typeof body === 'string') return stale(body)
  const { covers } = body
  if (covers.events > log.events.length || covers.bytes > log.end.validBytes) {
    return stale(`it covers ${covers.events} events and ${covers.bytes} bytes, the log holds ${log.events.length} and ${log.end.validBytes}`)
  }

  const found: string[] = []
  let start = 0
  for (const [index, segment] of body.segments.entries()) {
    if (sha256(await access.logBytes(id, start, segment.end)) !== segment.sha256) {
      found.push(`the digest of segment ${index + 1} (bytes ${start}–${segment.end}) differs from the log's bytes`)
    }
    start = segment.end
  }
  for (const event of body.held) {
    if (JSON.stringify(event) !== JSON.stringify(log.events[event.seq])) found.push(`its event ${event.seq} differs from the log's`)
  }
  const surface = new Surface()
  for (let seq = 0; seq < covers.events; seq++) {
    const event = log.events[seq]
    if (isSurfaceType(event.type)) surface.apply(event as SurfaceEvent)
  }
  const expected = surface.entries().map((e) => e.seq)
  if (JSON.stringify(expected) !== JSON.stringify(body.surface)) found.push('its surface is not the surface of the events it covers')
  const heldSeqs = new Set(body.held.map((e) => e.seq))
  const missing = neededSeqs(log.events.slice(0, covers.events)).filter((seq) => !heldSeqs.has(seq))
  if (missing.length) found.push(`it lacks events a resume needs (seq ${missing.slice(0, 5).join(', ')})`)
  if (!found.length) return []

  const trusted = (await readSessionLogFromSidecar(store, id)) !== undefined
  const reason = found.slice(0, 3).join('; ')
  if (!trusted) return stale(reason)
  return [{ severity: 'damage', message: `the resume sidecar ${where} disagrees with the log (${reason}) and a resume would use it; delete that file` }]
}

/** The seqs a resume must find held: the latest event of each type, pending queued prompts, the open step's events. */
function neededSeqs(events: readonly SessionEvent[]): number[] {
  const latest = new Map<string, number>()
  const pending = new Map<string, number>()
  let lastTurnEnd = -1
  let lastStepStart = -1
  for (const event of events) {
    latest.set(event.type, event.seq)
    if (event.type === 'turn/end') lastTurnEnd = event.seq
    if (event.type === 'step/start') lastStepStart = event.seq
    const data = event.data as { id?: unknown }
    if (event.type === 'inbox/queued' && typeof data.id === 'string') pending.set(data.id, event.seq)
    else if (typeof data.id === 'string' && (event.type === 'inbox/dequeued' || event.type.endsWith('/message'))) pending.delete(data.id)
  }
  const seqs = new Set([...latest.values(), ...pending.values()])
  for (let seq = heldFrom(lastTurnEnd, lastStepStart); seq < events.length; seq++) seqs.add(seq)
  return [...seqs].sort((a, b) => a - b)
}
