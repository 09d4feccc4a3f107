import type { ModelAdapter, Wire } from '../llm/adapter.js'
import { createAdapter } from '../llm/create.js'
import type { Message } from '../llm/messages.js'
import { bodyOf, deriveRequests, eachRequest, requestDigestCheck, type DerivedRequest } from '../session/replay.js'
import type { SessionEvent, SessionHeader } from '../session/events.js'
import type { Problem } from '../session/verify.js'

/**
 * Adapters that turn a re-derived request into bytes exactly as the session's run did, from the log alone: the
 * header's wire, and its config, which records the model's window, output ceiling and image support. An adapter's
 * body reads nothing else (no settings, no environment), so editing `models` after a run changes nothing here.
 * (Headers logged before Rein recorded those fields derive with the built-in catalog.)
 */
export function adaptersFor(): (wire: Wire) => ModelAdapter {
  const made = new Map<Wire, ModelAdapter>()
  return (wire) => {
    let adapter = made.get(wire)
    if (!adapter) {
      adapter = createAdapter({ wire, baseUrl: 'http://127.0.0.1:9', anthropicBaseUrl: 'http://127.0.0.1:9', apiKey: () => undefined })
      made.set(wire, adapter)
    }
    return adapter
  }
}

/** The verify check that re-derives every request from the log and compares digests. */
export function requestDigests(header: SessionHeader, events: readonly SessionEvent[]): Problem[] {
  return requestDigestCheck(adaptersFor())(header, events)
}

/** A message as plain text, each block on its own: reasoning, images and tool calls named in parentheses. */
export function textOfMessage(m: Message): string {
  if (m.role === 'system') return m.content
  return m.content
    .map((b) => {
      switch (b.type) {
        case 'text':
          return b.text
        case 'reasoning':
          return `(reasoning)\n${b.text}`
        case 'image':
          return `(image ${b.mimeType}, ${b.data.length} base64 characters)`
        case 'tool-call':
          return `(tool call ${b.name} ${b.id}) ${b.arguments}`
      }
    })
    .join('\n')
}

/**
 * The requests of a session as the model received them: for each, the system prompt, the tools and every message
 * labelled with the event and producer it came from, and whether its digest matches the log.
 */
export function renderRequests(header: SessionHeader, events: readonly SessionEvent[], only?: { turn: number; step: number }): string {
  const requests = deriveRequests(events, adaptersFor()).filter(
    (r) => !only || (r.turn === only.turn && r.step === only.step),
  )
  if (!requests.length) return only ? `No request was sent at turn ${only.turn} step ${only.step}.\n` : 'No request was sent in this session.\n'
  return requests.map(renderOne).join('\n')
}

function renderOne(r: DerivedRequest): string {
  const ok = r.sha256 === r.logged.sha256
  const lines = [
    `=== ${r.purpose === 'compaction' ? 'compaction request' : 'request'} · turn ${r.turn} step ${r.step} · request/sent seq ${r.seq} · ${r.bytes} bytes · digest ${ok ? 'matches the log' : 'DOES NOT MATCH the log'}`,
    `model ${r.request.config.model} · effort ${r.request.config.effort}`,
    '--- system',
    r.request.system,
    `--- tools (${r.request.tools.length}): ${r.request.tools.map((t) => t.name).join(', ')}`,
  ]
  r.request.messages.forEach((m, i) => {
    const origin = r.origins[i]
    const from = origin ? `${origin.type}${origin.seq !== null ? ` seq ${origin.seq}` : ''}${origin.source ? ` · from ${origin.source}` : ''}` : ''
    const label = m.role === 'tool' ? `tool result for ${m.callId}${m.isError ? ' (error)' : ''}` : m.role
    lines.push(`--- ${label}${from ? ` [${from}]` : ''}`, textOfMessage(m))
  })
  return `${lines.join('\n')}\n`
}

/** The exact bytes of each request, one per line (JSON lines with turn, step and body). */
export function renderRequestBodies(header: SessionHeader, events: readonly SessionEvent[], only?: { turn: number; step: number }): string {
  const adapterFor = adaptersFor()
  const lines: string[] = []
  for (const r of eachRequest(events, adapterFor)) {
    if (only && (r.turn !== only.turn || r.step !== only.step)) continue
    lines.push(`${JSON.stringify({ turn: r.turn, step: r.step, seq: r.seq, purpose: r.purpose, sha256: r.sha256, matches: r.sha256 === r.logged.sha256, body: JSON.parse(bodyOf(r, adapterFor)) })}\n`)
  }
  return lines.join('')
}
