import { deriveRequests, type DerivedRequest } from '../session/replay.js'
import { adaptersFor } from '../frontend/session-requests.js'
import type { Message } from '../llm/messages.js'
import type { SessionEvent, SessionHeader } from '../session/events.js'
import type { InspectedStep, StepFigures } from './api-types.js'
import { stepFigures, type Pricing } from './figures.js'


/** One message of a re-derived request, labelled with the event and producer it came from. */
export interface InspectedMessage {
  role: Message['role']
  /** The surface event's seq, or null for a message no event holds (a compaction's instruction). */
  seq: number | null
  eventType: string
  /** `source.kind` of an injected, steering or user message: who produced it. */
  producer?: string
  message: Message
}

export interface InspectedRequest extends InspectedStep {
  model: string
  effort: string
  system: string
  tools: { name: string; description: string }[]
  items: InspectedMessage[]
  /** The exact body, as bytes re-derived from the log. */
  body: string
}

/**
 * The inspector's view of a log. Re-deriving costs one pass over the log, so the result is kept per log version and
 * a step's detail is read from it.
 */
export class Inspector {
  private readonly cache = new Map<string, { version: string; requests: DerivedRequest[]; figures: StepFigures[] }>()

  constructor(private readonly price: Pricing) {}

  private derive(id: string, version: string, header: SessionHeader, events: readonly SessionEvent[]) {
    const cached = this.cache.get(id)
    if (cached?.version === version) return cached
    const entry = { version, requests: deriveRequests(events, adaptersFor()), figures: stepFigures(events, this.price) }
    if (this.cache.size >= 8) this.cache.delete(this.cache.keys().next().value as string)
    this.cache.set(id, entry)
    return entry
  }

  steps(id: string, version: string, header: SessionHeader, events: readonly SessionEvent[]): InspectedStep[] {
    const { requests, figures } = this.derive(id, version, header, events)
    return requests.map((r) => summary(r, figuresOf(r, figures)))
  }

  request(id: string, version: string, header: SessionHeader, events: readonly SessionEvent[], seq: number): InspectedRequest | undefined {
    const { requests, figures } = this.derive(id, version, header, events)
    const r = requests.find((candidate) => candidate.seq === seq)
    if (!r) return undefined
    return {
      ...summary(r, figuresOf(r, figures)),
      model: r.request.config.model,
      effort: r.request.config.effort,
      system: r.request.system,
      tools: r.request.tools.map((t) => ({ name: t.name, description: t.description })),
      items: r.request.messages.map((message, i) => {
        const origin = r.origins[i]
        return {
          role: message.role,
          seq: origin?.seq ?? null,
          eventType: origin?.type ?? 'unknown',
          ...(origin?.source ? { producer: origin.source } : {}),
          message,
        }
      }),
      body: r.body,
    }
  }
}

function summary(r: DerivedRequest, figures: StepFigures | undefined): InspectedStep {
  return {
    seq: r.seq,
    turn: r.turn,
    step: r.step,
    purpose: r.purpose,
    bytes: Buffer.byteLength(r.body),
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
