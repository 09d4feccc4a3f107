import { bodyOf, eachRequest, type DerivedRequest } from '../session/replay.js'
import { adaptersFor, textOfMessage } from '../frontend/session-requests.js'
import type { SessionEvent } from '../session/events.js'
import type { InspectedStep, StepFigures } from './api-types.js'
import { stepFigures, type Pricing } from './figures.js'
import type { InspectedMessage, InspectedRequest, MessagePage } from './inspector-api.js'

export type { InspectedMessage, InspectedRequest, MessagePage } from './inspector-api.js'

/** Messages a page of earlier messages holds unless asked for fewer, and the most it may hold. */
export const MESSAGE_PAGE = 50
export const MESSAGE_PAGE_MAX = 200
/** Most messages the first answer for a step holds: the newest ones, which include every message new in the step. */
export const FIRST_PAGE_MAX = 200

/** A re-derived request as the cache keeps it: without its body (`body()` rebuilds it from the request). */
interface Kept {
  derived: DerivedRequest
  step: InspectedStep
  /** The seq of the previous step's `request/sent`, whose messages this request extends. */
  previous?: number
}

/**
 * The inspector's view of a log. Re-deriving costs one pass over the log (every body built and hashed, as `rein
 * sessions verify` does), so the result is kept per log version; a step's detail and its message pages are read from
 * it. Bodies are not kept: the 600 bodies of a long session weigh hundreds of megabytes, and the one a person
 * downloads is rebuilt from the kept request (`body` is pure, so the bytes are the ones hashed).
 */
export class Inspector {
  private readonly cache = new Map<string, { version: string; requests: Map<number, Kept>; steps: InspectedStep[] }>()

  constructor(private readonly price: Pricing) {}

  private derive(id: string, version: string, events: readonly SessionEvent[]) {
    const cached = this.cache.get(id)
    if (cached?.version === version) return cached
    const figures = stepFigures(events, this.price)
    const requests = new Map<number, Kept>()
    let previous: number | undefined
    for (const derived of eachRequest(events, adaptersFor())) {
      const step = summary(derived, figuresOf(derived, figures))
      requests.set(derived.seq, { derived, step, ...(previous !== undefined ? { previous } : {}) })
      if (derived.purpose === 'step') previous = derived.seq
    }
    const entry = { version, requests, steps: [...requests.values()].map((k) => k.step) }
    this.cache.delete(id)
    if (this.cache.size >= 8) this.cache.delete(this.cache.keys().next().value as string)
    this.cache.set(id, entry)
    return entry
  }

  steps(id: string, version: string, events: readonly SessionEvent[]): InspectedStep[] {
    return this.derive(id, version, events).steps
  }

  /**
   * The request sent at `seq` without its body: header, digest check, figures and the newest messages — at least
   * every message new in this step, at least `MESSAGE_PAGE` when it has that many, never more than `FIRST_PAGE_MAX`.
   */
  request(id: string, version: string, events: readonly SessionEvent[], seq: number): InspectedRequest | undefined {
    const { requests } = this.derive(id, version, events)
    const kept = requests.get(seq)
    if (!kept) return undefined
    const { request } = kept.derived
    const total = request.messages.length
    const before = kept.previous === undefined ? undefined : requests.get(kept.previous)?.derived
    const newFrom = before ? sharedPrefix(kept.derived.origins, before.origins) : 0
    const start = Math.max(0, total - FIRST_PAGE_MAX, Math.min(newFrom, total - MESSAGE_PAGE))
    return {
      ...kept.step,
      model: request.config.model,
      effort: request.config.effort,
      system: request.system,
      tools: request.tools.map((t) => ({ name: t.name, description: t.description })),
      newFrom,
      ...page(kept.derived, start, total),
    }
  }

  /** How many messages the request at `seq` holds; undefined for no request. */
  messageCount(id: string, version: string, events: readonly SessionEvent[], seq: number): number | undefined {
    return this.derive(id, version, events).requests.get(seq)?.derived.request.messages.length
  }

  /** Messages `before - limit .. before - 1` of the request at `seq` (fewer at the start); undefined for no request. */
  messages(id: string, version: string, events: readonly SessionEvent[], seq: number, before: number, limit: number): MessagePage | undefined {
    const kept = this.derive(id, version, events).requests.get(seq)
    if (!kept) return undefined
    return page(kept.derived, Math.max(0, before - limit), Math.min(before, kept.derived.request.messages.length))
  }

  /** The exact body of the request at `seq`, rebuilt by its wire's adapter: the bytes whose digest the step shows. */
  body(id: string, version: string, events: readonly SessionEvent[], seq: number): string | undefined {
    const kept = this.derive(id, version, events).requests.get(seq)
    return kept ? bodyOf(kept.derived, adaptersFor()) : undefined
  }
}

function page(r: DerivedRequest, start: number, end: number): MessagePage {
  const items: InspectedMessage[] = []
  for (let i = start; i < end; i++) {
    const message = r.request.messages[i]
    const origin = r.origins[i]
    items.push({
      index: i,
      role: message.role,
      seq: origin?.seq ?? null,
      eventType: origin?.type ?? 'unknown',
      ...(origin?.source ? { producer: origin.source } : {}),
      ...(message.role === 'tool' ? { callId: message.callId, isError: message.isError } : {}),
      text: textOfMessage(message),
    })
  }
  return { total: r.request.messages.length, start, items }
}

/** How many leading messages two requests share: the same surface event at each place (projection is pure). */
function sharedPrefix(a: DerivedRequest['origins'], b: DerivedRequest['origins']): number {
  let i = 0
  while (i < a.length && i < b.length && a[i].seq !== null && a[i].seq === b[i].seq) i++
  return i
}

function summary(r: DerivedRequest, figures: StepFigures | undefined): InspectedStep {
  return {
    seq: r.seq,
    turn: r.turn,
    step: r.step,
    purpose: r.purpose,
    bytes: r.bytes,
    sha256: r.sha256,
    loggedSha256: r.logged.sha256,
    matches: r.sha256 === r.logged.sha256,
    messages: r.request.messages.length,
    ...(figures ? { figures } : {}),
  }
}

/** The response that answered a request: the first usage report after its `request/sent`, of the same purpose. */
function figuresOf(r: DerivedRequest, figures: readonly StepFigures[]): StepFigures | undefined {
  return figures.find((f) => f.seq > r.seq && f.purpose === r.purpose && (r.purpose === 'compaction' || (f.turn === r.turn && f.step === r.step)))
}
