import { z } from 'zod'
import type { ExtensionCommand } from '../agent/extensions.js'
import type { SessionEvent } from '../session/events.js'
import type { Checkpoints } from './engine.js'
import type { RewindHistory } from './rewind-history.js'
import { codeRecord, json } from './rewind.js'
import { describeChanges, restoreCode, RewindError } from './rewind-code.js'
import type { RewindOutcome } from './rewind-types.js'

const undoRequest = z.strictObject({
  conflicts: z.enum(['ask', 'overwrite', 'keep']).optional(),
  dryRun: z.boolean().optional(),
})

const ANSWERS = 'run it again choosing to overwrite them or to keep them (rein rewind --undo --overwrite or --keep-conflicts; conflicts "overwrite" or "keep" over RPC)'

/**
 * The `rewind-undo` command: puts the workspace back as it was just before the latest code rewind of this session
 * that is not undone yet (its `before`), the same way a rewind restores, with a snapshot first so the undo can itself
 * be rewound, and logs `checkpoint/rewind-undone` naming the rewind's seq. The conversation is not touched: the fork a
 * rewind made stays, and the session this runs in goes on. With nothing to undo, the outcome is `nothing`.
 */
export function undoRewindCommand(options: { engine: Checkpoints; history: RewindHistory }): ExtensionCommand {
  return async (input, _signal, context) => {
    const parsed = undoRequest.safeParse(input.args ?? {})
    if (!parsed.success) {
      throw new RewindError('invalid-request', `The undo request is not valid (${parsed.error.issues[0].message}); it takes only conflicts and dryRun.`)
    }
    const events = await options.history.events()
    const rewind = latestUndoable(events)
    if (!rewind) return { outcome: 'nothing', message: 'There is no rewind of the code in this session to undo.' }
    const { turn, before } = rewind.data
    const result = await restoreCode({
      engine: options.engine,
      target: before,
      events,
      knownFrom: rewind.seq,
      choice: parsed.data.conflicts ?? 'ask',
      dryRun: parsed.data.dryRun === true,
      doing: `undoing the rewind to turn ${turn}`,
      answers: ANSWERS,
      context,
    })
    const outcome: RewindOutcome = { turn, code: result.code }
    if (result.status === 'cancelled') return { outcome: 'cancelled', message: result.message, data: json(outcome) }
    if (result.status === 'planned') {
      return { outcome: 'planned', message: `Undoing the rewind to turn ${turn} would restore the files: ${describeChanges(result.code)}.`, data: json(outcome) }
    }
    const { changes, conflicts, kept, after } = codeRecord(result.code, result.after)
    context.record('checkpoint/rewind-undone', { rewind: rewind.seq, target: before, before: result.code.before ?? before, changes, conflicts, kept, after })
    const keptText = kept.length ? ` Kept as they are: ${kept.join(', ')}.` : ''
    return {
      outcome: 'rewound',
      message: `Undid the rewind to turn ${turn}: ${describeChanges(result.code)}.${keptText}`,
      data: json(outcome),
    }
  }
}

/** The latest `checkpoint/rewind` that restored code (it has a `before`) and no `checkpoint/rewind-undone` names. */
function latestUndoable(events: readonly SessionEvent[]): { seq: number; data: { turn: number; before: string } } | undefined {
  const undone = new Set<number>()
  for (const event of events) if (event.type === 'checkpoint/rewind-undone') undone.add(event.data.rewind)
  for (let seq = events.length - 1; seq >= 0; seq--) {
    const event = events[seq]
    if (event.type !== 'checkpoint/rewind' || !event.data.before || undone.has(seq)) continue
    return { seq, data: { turn: event.data.turn, before: event.data.before } }
  }
  return undefined
}
