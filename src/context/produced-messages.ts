import type { EnteringMessage, ExtensionContext } from '../agent/extensions.js'
import type { InputBlock } from '../llm/messages.js'
import type { JsonValue, SurfaceEvent } from '../session/events.js'

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

/** The session's current surface events, oldest first. */
export function surfaceOf(agent: ExtensionContext): readonly SurfaceEvent[] {
  return agent.session.surface()
}

/** The text of a message's blocks, joined. */
export function textOfBlocks(content: readonly InputBlock[]): string {
  return content.map((b) => (b.type === 'text' ? b.text : '')).join('')
}
