import { z } from 'zod'
import type { ExtensionCommand } from '../agent/extensions.js'
import type { Checkpoints } from './engine.js'
import type { RewindHistory } from './rewind-history.js'
import { codeRecord, json } from './rewind.js'
import { describeChanges, leftAloneSentence, restoreCode, RewindError } from './rewind-code.js'
import type { RewindOutcome } from './rewind-types.js'
import { interruptedRestore, latestUndoable } from './undo-points.js'

const undoRequest = z.strictObject({
  conflicts: z.enum(['ask', 'overwrite', 'keep']).optional(),
  dryRun: z.boolean().optional(),
})

const ANSWERS = 'run it again choosing to overwrite them or to keep them (rein rewind --undo --overwrite or --keep-conflicts; conflicts "overwrite" or "keep" over RPC)'

/**
 * The `rewind-undo` command: puts the workspace back as it was just before the latest code rewind of this session
 * that is not undone yet (its `before`), the same way a rewind restores, with a snapshot first so the undo can itself
 * be rewound, and logs `checkpoint/rewind-undone` naming the rewind's seq. A restore that was interrupted (its
 * `checkpoint/undo-point` never finished) counts as a rewind here: the undo puts back its `before`, whichever
 * command it was. The conversation is not touched: the fork a rewind made stays, and the session this runs in goes
 * on. With nothing to undo, the outcome is `nothing`.
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
    const { turn, before } = rewind
    const what = !rewind.point
      ? `the rewind to turn ${turn}`
      : rewind.point.of === 'rewind'
        ? `the interrupted rewind to turn ${turn}`
        : `the interrupted undo of the rewind to turn ${turn}`
    const result = await restoreCode({
      engine: options.engine,
      target: before,
      events,
      knownFrom: rewind.seq,
      choice: parsed.data.conflicts ?? 'ask',
      dryRun: parsed.data.dryRun === true,
      doing: `undoing ${what}`,
      answers: ANSWERS,
      context,
      flush: () => options.history.flush(),
      point: { of: 'undo', turn, rewind: rewind.seq },
      interrupted: interruptedRestore(context.session),
    })
    const outcome: RewindOutcome = { turn, code: result.code }
    const notices = options.engine.takeNotices()
    const tail = notices.length ? ` ${notices.join(' ')}` : ''
    if (result.status === 'cancelled') return { outcome: 'cancelled', message: result.message, data: json(outcome) }
    if (result.status === 'planned') {
      return { outcome: 'planned', message: `Undoing ${what} would restore the files: ${describeChanges(result.code)}.${leftAloneSentence(result.code)}${tail}`, data: json(outcome) }
    }
    const { changes, conflicts, kept, after } = codeRecord(result.code, result.after)
    context.record('checkpoint/rewind-undone', {
      rewind: rewind.seq,
      target: before,
      before: result.code.before ?? before,
      changes,
      conflicts,
      kept,
      after,
      point: result.point,
    })
    const keptText = kept.length ? ` Kept as they are: ${kept.join(', ')}.` : ''
    return {
      outcome: 'rewound',
      message: `Undid ${what}: ${describeChanges(result.code)}.${keptText}${leftAloneSentence(result.code)}${tail}`,
      data: json(outcome),
    }
  }
}
