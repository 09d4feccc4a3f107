// The inspector's request shapes, shared by the server (src/web/inspector.ts) and the page (web/src, type imports
// only): one definition, so the two cannot drift. No runtime imports here: the page's build type-checks this file.
import type { Message } from '../llm/messages.js'
import type { InspectedStep } from './api-types.js'

/** One message of a re-derived request, labelled with the event and producer it came from. */
export interface InspectedMessage {
  /** Its position in the request's message list, from 0. */
  index: number
  role: Message['role']
  /** The surface event's seq, or null for a message no event holds (a compaction's instruction). */
  seq: number | null
  eventType: string
  /** `source.kind` of an injected, steering or user message: who produced it. */
  producer?: string
  /** On a tool result: the call it answers, and whether it reports an error. */
  callId?: string
  isError?: boolean
  /** Its content as plain text (`textOfMessage`, as `rein sessions show --requests` prints it); the exact JSON is the body's. */
  text: string
}

/** A contiguous run of a request's messages: `items` are messages `start .. start + items.length - 1` of `total`. */
export interface MessagePage {
  total: number
  start: number
  items: InspectedMessage[]
}

/**
 * One request as the inspector shows it when a step is chosen: its header and digest check in full, and the newest
 * page of its messages, which always holds every message new in this step (from `newFrom` on). Earlier messages and
 * the exact body are fetched on demand, never sent with it.
 */
export interface InspectedRequest extends InspectedStep, MessagePage {
  model: string
  effort: string
  system: string
  tools: { name: string; description: string }[]
  /**
   * The index of the first message this request does not share with the previous step's request (the same surface
   * events in the same places): 0 for the first request and after a compaction replaced the prefix.
   */
  newFrom: number
}
