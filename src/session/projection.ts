import type { Message } from '../llm/messages.js'
import type { SurfaceEvent } from './events.js'

/**
 * What the model sees for one surface event. Injected content is passed through verbatim: a producer that wants
 * framing writes it into its own content. Never add tags here; `source`, `meta` and `turn` never render.
 */
export function projectEvent(event: SurfaceEvent): Message | null {
  switch (event.type) {
    case 'user/message':
    case 'context/message':
    case 'steering/message':
      return { role: 'user', content: event.data.content }
    case 'assistant/message':
      return event.data.message.content.length ? event.data.message : null
    case 'tool/result':
      return { role: 'tool', callId: event.data.callId, content: event.data.content, isError: event.data.isError }
  }
}
