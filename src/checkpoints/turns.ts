import type { InputBlock } from '../llm/messages.js'
import type { SessionEvent } from '../session/events.js'
import type { Change } from './engine.js'
import type { TurnCheckpoint } from './rewind-types.js'

/**
 * The turns of a log as a rewind picker lists them, oldest first: one entry per `turn/start`, with the first line of
 * the prompt that opened it, the first snapshot taken inside it (the workspace before its first change) and every
 * path its steps changed, once each, in the order first changed, with the latest kind. Pure: reads the events only.
 */
export function checkpointTurns(events: readonly SessionEvent[]): TurnCheckpoint[] {
  const turns: TurnCheckpoint[] = []
  let open: { entry: TurnCheckpoint; changes: Map<string, Change> } | undefined
  for (const event of events) {
    switch (event.type) {
      case 'turn/start': {
        const entry: TurnCheckpoint = { turn: event.data.turn, startSeq: event.seq, prompt: '', changes: [] }
        open = { entry, changes: new Map() }
        turns.push(entry)
        break
      }
      case 'turn/end':
        open = undefined
        break
      case 'user/message':
      case 'steering/message':
        if (open && !open.entry.prompt) open.entry.prompt = firstLine(event.data.content)
        break
      case 'checkpoint/created':
        if (open && open.entry.snapshot === undefined && event.data.turn === open.entry.turn && event.data.commit) {
          open.entry.snapshot = event.data.commit
        }
        break
      case 'checkpoint/changes':
        if (!open || event.data.turn !== open.entry.turn) break
        // A Map keeps the order keys were first set in, and `set` on a known key updates its kind in place.
        for (const change of event.data.paths) open.changes.set(change.path, { path: change.path, kind: change.kind })
        open.entry.changes = [...open.changes.values()]
        break
    }
  }
  return turns
}

/** The first non-empty line of a message's text, trimmed. */
function firstLine(content: readonly InputBlock[]): string {
  for (const block of content) {
    if (block.type !== 'text') continue
    const line = block.text.split('\n').find((l) => l.trim())
    if (line) return line.trim()
  }
  return ''
}
