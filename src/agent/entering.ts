import { randomUUID } from 'node:crypto'
import type { Session } from '../session/session.js'
import type { EnteringMessage } from './extensions.js'
import type { InboxItem } from './inbox.js'

/** An inbox item as the message it enters as; its id becomes the message's id. */
export function enteringOf(item: InboxItem): EnteringMessage {
  return {
    id: item.id,
    type: item.verb === 'followUp' ? 'user/message' : item.verb === 'steer' ? 'steering/message' : 'context/message',
    content: item.content,
    source: item.source,
    ...(item.meta !== undefined ? { meta: item.meta } : {}),
  }
}

/** Appends a step's entering messages: the only way prompts, steering and context reach the surface. */
export function enter(session: Session, messages: readonly EnteringMessage[], turn: number): void {
  for (const m of messages) {
    const id = m.id ?? randomUUID()
    if (m.type === 'user/message') session.append('user/message', { id, content: m.content, source: m.source })
    else if (m.type === 'steering/message') session.append('steering/message', { id, turn, content: m.content, source: m.source })
    else session.append('context/message', { id, content: m.content, source: m.source, ...(m.meta !== undefined ? { meta: m.meta } : {}) })
  }
}

/** Whether an event from seq `mark` on replaced part of the surface. O(events since mark). */
export function replacedSince(session: Session, mark: number): boolean {
  const events = session.events
  for (let i = mark; i < events.length; i++) {
    const op = events[i].surfaceOp
    if (op !== undefined && op !== 'append') return true
  }
  return false
}
