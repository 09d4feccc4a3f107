import { createHash } from 'node:crypto'
import type { SessionEvent } from './events.js'

/**
 * The resume sidecar: a checkpoint of what a running agent needs from a log, written beside it so a resume reads
 * the sidecar and the log's tail instead of the whole log. It is derived, never the truth, and never trusted
 * blindly: it names the log bytes it covers, with digests, and a load uses it only when the log still agrees.
 *
 * Invariants of a sidecar Rein writes:
 * - `covers.events` events (seqs 0 … events−1) and `covers.bytes` bytes of the log (the header line included, each
 *   line with its newline) are described; byte `covers.bytes − 1` of the log is the newline of event events−1.
 * - `covers.header` and `covers.last` are the SHA-256 of the header line and of the last covered line (no newline),
 *   `covers.headerBytes` and `covers.lastBytes` their lengths: a load checks them with two small reads.
 * - `segments` split bytes 0 … covers.bytes into contiguous ranges, each with the SHA-256 of its bytes: the digest
 *   of everything covered. `rein sessions verify` checks every one; a load does not (that would read the log).
 * - `held` are events of the log, byte-identical in meaning and in seq order: every surface entry, the latest event
 *   of each type, each `inbox/queued` still pending, and every event of the open step (see `heldFrom`); `surface`
 *   lists the surface's seqs in surface order (a replace can put a later seq before earlier ones).
 * - The file is two lines: a small envelope `{format, version, sha256}` and the body whose SHA-256 it names, so a
 *   truncated or altered sidecar is told from a good one without trusting its content.
 */
export interface SidecarBody {
  session: string
  covers: { events: number; bytes: number; header: string; headerBytes: number; last: string; lastBytes: number }
  segments: SidecarSegment[]
  surface: number[]
  held: SessionEvent[]
}

/** What a sidecar covered, which the next sidecar of the same log extends by one segment. */
export interface SidecarCoverage {
  events: number
  bytes: number
  header: string
  headerBytes: number
  segments: SidecarSegment[]
}

/** One range of covered log bytes: from the previous segment's `end` (or 0) to `end`, and their SHA-256. */
export interface SidecarSegment {
  end: number
  sha256: string
}

export const SIDECAR_FORMAT = 'rein-resume-sidecar'
export const SIDECAR_VERSION = 1

/** Sidecar file suffix after the log's own file name: `<id>.jsonl.resume`. */
export const SIDECAR_SUFFIX = '.resume'

/**
 * The first seq from which a sidecar holds every event: the latest `step/start` when it comes after the latest
 * `turn/end`, else just after that `turn/end` (-1 for either when there is none). Repair reads the open step's tool
 * calls and results; earlier steps of a turn answered all of theirs before their `step/end`, so a long turn needs
 * only its last step held, not all of it.
 */
export function heldFrom(lastTurnEnd: number, lastStepStart: number): number {
  return Math.max(lastTurnEnd + 1, lastStepStart)
}

export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex')

/** The sidecar file's text for `body`. */
export function sidecarText(body: SidecarBody): string {
  const text = JSON.stringify(body)
  return `${JSON.stringify({ format: SIDECAR_FORMAT, version: SIDECAR_VERSION, sha256: sha256(text) })}\n${text}\n`
}

/**
 * The body of a sidecar file, or why it cannot be used (one phrase, for `sessions verify`). Checks the envelope, the
 * body's digest and its shape; whether it agrees with the log is for the caller.
 */
export function parseSidecar(text: string, id: string): SidecarBody | string {
  const newline = text.indexOf('\n')
  if (newline === -1 || !text.endsWith('\n')) return 'it is truncated'
  let envelope: { format?: unknown; version?: unknown; sha256?: unknown }
  try {
    envelope = JSON.parse(text.slice(0, newline)) as typeof envelope
  } catch {
    return 'its first line is not JSON'
  }
  if (envelope?.format !== SIDECAR_FORMAT) return 'it is not a Rein resume sidecar'
  if (envelope.version !== SIDECAR_VERSION) return `it has version ${JSON.stringify(envelope.version)}, not ${SIDECAR_VERSION}`
  const bodyText = text.slice(newline + 1, -1)
  if (sha256(bodyText) !== envelope.sha256) return 'its content does not match its digest (truncated or altered)'
  let body: SidecarBody
  try {
    body = JSON.parse(bodyText) as SidecarBody
  } catch {
    return 'its body is not JSON'
  }
  if (body?.session !== id) return `it belongs to session ${JSON.stringify(body?.session)}`
  return shapeProblem(body) ?? body
}

function shapeProblem(body: SidecarBody): string | undefined {
  const { covers, segments, surface, held } = body
  const count = (n: unknown): boolean => Number.isInteger(n) && (n as number) >= 0
  if (!covers || ![covers.events, covers.bytes, covers.headerBytes, covers.lastBytes].every(count)) return 'its covered range is malformed'
  if (typeof covers.header !== 'string' || typeof covers.last !== 'string') return 'its covered range has no digests'
  if (!Array.isArray(segments) || !Array.isArray(surface) || !Array.isArray(held)) return 'it lacks segments, surface or events'
  let end = 0
  for (const segment of segments) {
    if (!count(segment?.end) || segment.end <= end || typeof segment.sha256 !== 'string') return 'its segments are malformed'
    end = segment.end
  }
  if (end !== covers.bytes) return `its segments end at byte ${end}, not at the covered ${covers.bytes}`
  let seq = -1
  for (const event of held) {
    if (event === null || typeof event !== 'object' || !Number.isInteger(event.seq) || event.seq <= seq || event.seq >= covers.events) {
      return 'its events are not in seq order within the covered range'
    }
    seq = event.seq
  }
  return undefined
}
