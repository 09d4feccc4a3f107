import type { EnteringMessage, ExtensionContext } from '../agent/extensions.js'
import type { InputBlock } from '../llm/messages.js'
import type { JsonValue, SessionEvent, SurfaceEvent } from '../session/events.js'

/**
 * How a context producer finds what it said before: its own `context/message` events still on the session surface
 * (so a message shadowed by compaction no longer counts) followed by those already entering with this step. A
 * producer keeps no other memory between steps, which is what makes resume and compaction come out right.
 */

/** One earlier message of a producer: what the model saw and what the producer recorded beside it. */
export interface ProducedMessage {
  content: readonly InputBlock[]
  meta?: JsonValue
}

/** The producer's messages in surface order, then the entering ones in list order. */
export function producedMessages(
  kind: string,
  surface: readonly SurfaceEvent[],
  entering: readonly EnteringMessage[] = [],
): ProducedMessage[] {
  const out: ProducedMessage[] = []
  for (const event of surface) {
    if (event.type === 'context/message' && event.data.source.kind === kind) {
      out.push({ content: event.data.content, meta: event.data.meta })
    }
  }
  for (const message of entering) {
    if (message.type === 'context/message' && message.source.kind === kind) {
      out.push({ content: message.content, meta: message.meta })
    }
  }
  return out
}

/**
 * `producedMessages` for one producer, kept as the log grows so a step costs O(the producer's own messages), not
 * O(surface): the first call for a session scans its surface; from then on the producer's `event` listener adds each
 * committed message of its kind, and any surface replace (a compaction, a rewind) makes the next call scan again. The
 * answer is the same as `producedMessages` over the current surface: what it keeps is derived from the log alone.
 */
export class ProducedIndex {
  private readonly sessions = new Map<string, { list: ProducedMessage[]; after: number } | 'rescan'>()

  constructor(private readonly kind: string) {}

  /** The producer's messages on the surface of `agent`'s session, then the entering ones. */
  messages(agent: ExtensionContext, entering: readonly EnteringMessage[] = []): ProducedMessage[] {
    let kept = this.sessions.get(agent.session.id)
    if (kept === undefined || kept === 'rescan') {
      const surface = surfaceOf(agent)
      let after = -1
      for (const event of surface) after = Math.max(after, event.seq)
      kept = { list: producedMessages(this.kind, surface), after }
      this.sessions.set(agent.session.id, kept)
    }
    return entering.length ? [...kept.list, ...producedMessages(this.kind, [], entering)] : kept.list.slice()
  }

  /** To be called from the producer's `event` listener with every committed event. */
  observe(event: SessionEvent, agent: ExtensionContext): void {
    const kept = this.sessions.get(agent.session.id)
    if (kept === undefined || kept === 'rescan' || event.seq <= kept.after) return
    kept.after = event.seq
    if (event.surfaceOp !== undefined && event.surfaceOp !== 'append') this.sessions.set(agent.session.id, 'rescan')
    else if (event.type === 'context/message' && event.data.source.kind === this.kind) {
      kept.list.push({ content: event.data.content, meta: event.data.meta })
    }
  }
}

/** The session's current surface events, oldest first. */
export function surfaceOf(agent: ExtensionContext): readonly SurfaceEvent[] {
  return agent.session.surface()
}

/** The text of a message's blocks, joined. */
export function textOfBlocks(content: readonly InputBlock[]): string {
  return content.map((b) => (b.type === 'text' ? b.text : '')).join('')
}
