import { createAdapter } from '../../src/llm/create.js'
import type { ModelAdapter } from '../../src/llm/adapter.js'
import { requestDigestCheck } from '../../src/session/replay.js'
import type { EventType } from '../../src/session/events.js'
import type { Session } from '../../src/session/session.js'
import { verifyEvents } from '../../src/session/verify.js'
import { eventsOf as eventsOfLog, type EventOf } from '../support/events.js'

/** The first words of the summary instruction: how a mock script recognises the summary request. */
export const SUMMARY_REQUEST = 'The conversation above is about to be replaced by a summary'

/** The first words of the framed summary that replaces shadowed messages. */
export const SUMMARY_FRAME = 'This is a summary of the earlier part of this session'

export function chatAdapter(url: string): ModelAdapter {
  return createAdapter({ wire: 'chat', baseUrl: url, apiKey: () => 'test-key' })
}

/** What `rein sessions verify` would report for an in-memory session: structure plus every request digest. */
export function verifyProblems(session: Session, url: string): string[] {
  const events = session.events
  const structural = verifyEvents(session.header, events)
  const digests = requestDigestCheck(() => chatAdapter(url))(session.header, events)
  return [...structural, ...digests].map((p) => `seq ${p.seq}: ${p.message}`)
}

/** The events of one type, typed. */
export function eventsOf<T extends EventType>(session: Session, type: T): EventOf<T>[] {
  return eventsOfLog(session.events, type)
}

/** The text of a chat-wire message's content (a string or text parts). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((part: { text?: string }) => part.text ?? '').join('')
}

/**
 * Appends one complete step of a turn to `session`: an assistant message calling `calls` tools (ids `<prefix>-<n>`)
 * and one result per call with `resultText`. Returns the call ids.
 */
export function appendToolStep(session: Session, turn: number, step: number, prefix: string, resultTexts: string[]): string[] {
  const ids = resultTexts.map((_, n) => `${prefix}-${n}`)
  session.append('step/start', { turn, step })
  session.append('assistant/message', {
    turn,
    step,
    message: {
      role: 'assistant',
      content: ids.map((id) => ({ type: 'tool-call' as const, id, name: 'echo', arguments: '{"text":"x"}' })),
    },
  })
  resultTexts.forEach((text, n) => {
    session.append('tool/call', { turn, step, callId: ids[n], name: 'echo', arguments: '{"text":"x"}' })
    session.append('tool/result', { turn, step, callId: ids[n], content: [{ type: 'text', text }], isError: false })
  })
  session.append('step/end', { turn, step })
  return ids
}
