import type { EventDataMap, EventType, SessionEvent } from './events.js'

/** An event not yet appended: its type and data. */
export type PendingEvent = { [T in EventType]: { type: T; data: EventDataMap[T] } }[EventType]

/** What the model and a person read for a call that was logged (`tool/call`) but has no result. */
export const UNKNOWN_OUTCOME =
  'The outcome of this tool call is unknown: the session stopped (crash or kill) while it ran, before its result was recorded. Check for side effects (files, processes, remote state) before retrying it.'

/** What they read for a call the model asked for that never started (no `tool/call` was logged). */
export const NOT_RUN = 'This tool call was not run: the session stopped before it started. It had no effect; run it again if it is still needed.'

/**
 * The events that close what a crash left open at the end of a log, in the order they are appended: a synthetic
 * `tool/result` (isError) for every tool call of the open turn that has none, in model order, then `step/end` for an
 * open step, then `turn/end` with reason `interrupted` for an open turn. Empty for a log that ends cleanly. Pure: the
 * caller appends them, so repair never rewrites what is already in the log.
 */
export function repairTail(events: readonly SessionEvent[]): PendingEvent[] {
  let from = events.length
  // `?.`: a session resumed from its sidecar holds the latest `turn/end` and the open step, not every seq between.
  while (from > 0 && events[from - 1]?.type !== 'turn/end') from--

  let turn: number | undefined
  let step: { turn: number; step: number } | undefined
  /** Tool calls without a result, by call id, in the order the model asked for them. */
  const open = new Map<string, { turn: number; step: number; logged: boolean }>()
  for (let i = from; i < events.length; i++) {
    const event = events[i]
    if (event === undefined) continue
    switch (event.type) {
      case 'turn/start':
        turn = event.data.turn
        break
      case 'step/start':
        step = { ...event.data }
        break
      case 'step/end':
        step = undefined
        break
      case 'assistant/message': {
        const data = event.data
        for (const block of data.message.content) {
          if (block.type === 'tool-call' && !open.has(block.id)) {
            open.set(block.id, { turn: data.turn, step: data.step, logged: false })
          }
        }
        break
      }
      case 'tool/call': {
        const data = event.data
        open.set(data.callId, { turn: data.turn, step: data.step, logged: true })
        break
      }
      case 'tool/result':
        open.delete(event.data.callId)
        break
    }
  }

  const repairs: PendingEvent[] = []
  for (const [callId, call] of open) {
    const text = call.logged ? UNKNOWN_OUTCOME : NOT_RUN
    repairs.push({
      type: 'tool/result',
      data: {
        turn: call.turn,
        step: call.step,
        callId,
        content: [{ type: 'text', text }],
        isError: true,
        error: { code: call.logged ? 'outcome-unknown' : 'not-run', message: text },
      },
    })
  }
  if (step) repairs.push({ type: 'step/end', data: step })
  if (turn !== undefined) repairs.push({ type: 'turn/end', data: { turn, reason: 'interrupted' } })
  return repairs
}
