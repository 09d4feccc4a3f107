import type { ModelAdapter, ModelRequest } from '../llm/adapter.js'
import { wholeBytes, type RequestBody } from '../llm/body-bytes.js'
import type { Message } from '../llm/messages.js'
import type { EventDataMap, SurfaceEvent } from './events.js'
import { projectEvent } from './projection.js'

export type RequestHeader = EventDataMap['request/header']

/** The header fields that decide whether a new `request/header` must be logged. */
export function sameHeader(a: Omit<RequestHeader, 'reason'>, b: Omit<RequestHeader, 'reason'>): boolean {
  return (
    a.system === b.system &&
    a.wire === b.wire &&
    JSON.stringify(a.config) === JSON.stringify(b.config) &&
    JSON.stringify(a.tools) === JSON.stringify(b.tools)
  )
}

/** A request is the latest header plus the projected surface: nothing else may enter it (DESIGN principle 1). */
export function buildRequest(header: RequestHeader, messages: readonly Message[]): ModelRequest {
  return { config: header.config, system: header.system, tools: header.tools, messages }
}

/**
 * The exact bytes sent and their digest, as `request/sent` records them. An adapter that keeps a session's body bytes
 * (`encode`) hands out its chunks: O(new messages) to encode and hash. Otherwise the whole body is encoded and
 * hashed: O(body).
 */
export function encodeRequest(adapter: ModelAdapter, request: ModelRequest): { body: RequestBody; sha256: string; bytes: number } {
  if (adapter.encode) {
    const { chunks, sha256, bytes } = adapter.encode(request)
    return { body: chunks, sha256, bytes }
  }
  const body = adapter.body(request)
  const { sha256, bytes } = wholeBytes(body)
  return { body, sha256, bytes }
}

/**
 * A compaction's summary request messages: the projection of the surface entries up to `lastIndex` — byte-identical
 * to the start of the session's last request, so the provider serves them from its cache — then the instruction.
 */
export function summaryMessages(surface: readonly SurfaceEvent[], lastIndex: number, instruction: string): Message[] {
  const messages: Message[] = []
  for (let i = 0; i <= lastIndex; i++) {
    const m = projectEvent(surface[i])
    if (m) messages.push(m)
  }
  messages.push({ role: 'user', content: [{ type: 'text', text: instruction }] })
  return messages
}
