import { createHash } from 'node:crypto'
import type { ModelAdapter, ModelRequest, Wire } from '../llm/adapter.js'
import type { SessionEvent, SessionHeader, SurfaceEvent } from './events.js'
import { isSurfaceEvent } from './events.js'
import { buildRequest, summaryMessages, type RequestHeader } from './request.js'
import { Surface } from './surface.js'
import type { Problem } from './verify.js'

/**
 * One request as the log proves it was sent: re-derived from the log prefix before its `request/sent`. Its body is
 * not kept (a long session's bodies weigh hundreds of megabytes): `sha256` and `bytes` are of the body `wire`'s
 * adapter built from `request`, and `bodyOf` builds those same bytes again (`body` is pure).
 */
export interface DerivedRequest {
  /** The seq of the `request/sent` event. */
  seq: number
  turn: number
  step: number
  purpose: 'step' | 'compaction'
  request: ModelRequest
  /** Which surface entry produced each message (its seq and event type), in message order; the instruction of a compaction request has none. */
  origins: { seq: number | null; type: string; source?: string }[]
  /** The wire of the header the request was built from: its adapter makes the body. */
  wire: Wire
  /** The body's length in UTF-8 bytes. */
  bytes: number
  sha256: string
  logged: { sha256: string; bytes: number }
}

/** Every request a log records, re-derived (`eachRequest`), in log order. */
export function deriveRequests(
  events: readonly SessionEvent[],
  adapterFor: (wire: Wire) => ModelAdapter,
): DerivedRequest[] {
  return Array.from(eachRequest(events, adapterFor))
}

/**
 * Walks a log and re-derives every request it records, one at a time: the latest `request/header` plus the
 * projection of the surface as it stood when `request/sent` was appended (for a compaction request: the shadowed
 * entries and the logged instruction). `adapterFor` gives the adapter of a header's wire; its `body` is pure. Each
 * body is built, hashed and measured, then let go: at most one body is alive at a time.
 */
export function* eachRequest(
  events: readonly SessionEvent[],
  adapterFor: (wire: Wire) => ModelAdapter,
): Generator<DerivedRequest> {
  const surface = new Surface()
  let header: RequestHeader | undefined
  let compaction: SessionEvent<'compaction/start'> | undefined
  for (const event of events) {
    if (isSurfaceEvent(event)) {
      surface.apply(event)
      continue
    }
    if (event.type === 'request/header') header = (event as SessionEvent<'request/header'>).data
    else if (event.type === 'compaction/start') compaction = event as SessionEvent<'compaction/start'>
    else if (event.type === 'compaction/end') compaction = undefined
    else if (event.type === 'request/sent' && header) {
      const sent = event as SessionEvent<'request/sent'>
      const entries = surface.entries()
      let request: ModelRequest
      let origins: DerivedRequest['origins']
      if (sent.data.purpose === 'compaction' && compaction?.data.instruction !== undefined) {
        const last = entries.findIndex((e) => e.seq === compaction?.data.end)
        const shadowed = entries.slice(0, last + 1)
        request = { ...buildRequest(header, []), messages: summaryMessages(entries, last, compaction.data.instruction) }
        origins = [...originsOf(shadowed), { seq: null, type: 'compaction/instruction' }]
      } else {
        request = buildRequest(header, surface.messages())
        origins = originsOf(entries)
      }
      const wire = header.wire ?? 'chat'
      const body = adapterFor(wire).body(request)
      yield {
        seq: sent.seq,
        turn: sent.data.turn,
        step: sent.data.step,
        purpose: sent.data.purpose === 'compaction' ? 'compaction' : 'step',
        request,
        origins,
        wire,
        bytes: Buffer.byteLength(body, 'utf8'),
        sha256: createHash('sha256').update(body, 'utf8').digest('hex'),
        logged: { sha256: sent.data.sha256, bytes: sent.data.bytes },
      }
    }
  }
}

/** The exact bytes of a derived request: those whose digest is `sha256`. */
export function bodyOf(r: Pick<DerivedRequest, 'wire' | 'request'>, adapterFor: (wire: Wire) => ModelAdapter): string {
  return adapterFor(r.wire).body(r.request)
}

function originsOf(entries: readonly SurfaceEvent[]): DerivedRequest['origins'] {
  const out: DerivedRequest['origins'] = []
  for (const e of entries) {
    if (e.type === 'assistant/message' && e.data.message.content.length === 0) continue
    const source = 'source' in e.data ? (e.data as { source: { kind: string } }).source.kind : undefined
    out.push({ seq: e.seq, type: e.type, ...(source ? { source } : {}) })
  }
  return out
}

/** The verify check: every logged digest must match the request re-derived from the log. */
export function requestDigestCheck(adapterFor: (wire: Wire) => ModelAdapter) {
  return (_header: SessionHeader, events: readonly SessionEvent[]): Problem[] => {
    const problems: Problem[] = []
    for (const r of eachRequest(events, adapterFor)) {
      if (r.sha256 === r.logged.sha256) continue
      problems.push({
        seq: r.seq,
        message: `the ${r.purpose === 'compaction' ? 'compaction request' : 'request'} of turn ${r.turn} step ${r.step} does not match the log: re-derived sha256 ${r.sha256.slice(0, 12)}… (${r.bytes} bytes), logged ${r.logged.sha256.slice(0, 12)}… (${r.logged.bytes} bytes)`,
      })
    }
    return problems
  }
}
