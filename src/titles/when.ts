import type { EventType, SessionEvent } from '../session/events.js'
import type { TitleSource } from './title-request.js'

/**
 * Whether `ended`, an event just committed to `log`, is the moment to ask the model for a title, and from what.
 * It is when all of these hold:
 * - the turn ended `completed`, and no earlier turn of the session did: the first prompt has been answered once;
 * - the log holds no `session/title`: a rename (or an earlier title) always wins, and is never overwritten;
 * - the log holds no `title/failed`: a session costs at most one title request, even across resumes;
 * - the session has a first prompt with text.
 * Undefined otherwise. Reads from the log's start and stops at the first completed turn, so its cost does not grow
 * with the session.
 */
export function titleMoment(log: TitleLogView, ended: SessionEvent): TitleSource | undefined {
  if (ended.type !== 'turn/end' || ended.data.reason !== 'completed') return undefined
  if (log.last('session/title') || log.last('title/failed')) return undefined
  let prompt: string | undefined
  let reply = ''
  for (const event of log.events) {
    if (event.type === 'user/message' && prompt === undefined) prompt = textOf(event.data.content)
    else if (event.type === 'assistant/message' && prompt !== undefined && !reply) reply = textOf(event.data.message.content)
    else if (event.type === 'turn/end' && event.data.reason === 'completed') {
      if (event.seq !== ended.seq) return undefined
      break
    }
  }
  if (!prompt?.trim()) return undefined
  return { prompt, reply }
}

/** The log as the title rule reads it: every event in seq order, and the latest of a type in O(1). */
export interface TitleLogView {
  readonly events: readonly SessionEvent[]
  last<T extends EventType>(type: T): SessionEvent<T> | undefined
}

function textOf(content: readonly { type: string; text?: string }[]): string {
  return content
    .map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .filter(Boolean)
    .join('\n')
}
