import { z } from 'zod'
import type { CommandInput, ExtensionCommand } from '../agent/extensions.js'
import type { JsonValue, SessionEvent } from '../session/events.js'
import type { Checkpoints } from './engine.js'
import type { RewindHistory } from './rewind-history.js'
import { describeChanges, leftAloneSentence, restoreCode, RewindError } from './rewind-code.js'
import type { CodeRewind, RewindOutcome } from './rewind-types.js'
import { checkpointTurns } from './turns.js'
import { interruptedNotice, interruptedRestore } from './undo-points.js'

const rewindRequest = z.strictObject({
  turn: z.number().int().min(1),
  code: z.boolean().optional(),
  conversation: z.boolean().optional(),
  conflicts: z.enum(['ask', 'overwrite', 'keep']).optional(),
  dryRun: z.boolean().optional(),
})

/** How to answer the conflict question without being asked, for the sentence a rewind that could not ask ends with. */
const ANSWERS = 'run it again choosing to overwrite them or to keep them (rein rewind --overwrite or --keep-conflicts; conflicts "overwrite" or "keep" over RPC)'

export interface RewindCommandOptions {
  engine: Checkpoints
  history: RewindHistory
}

/**
 * The `rewind` command (docs/checkpoints.md, "Rewind"). What holds:
 * - The code goes back to the first snapshot taken at or after the turn's start: the workspace before the turn's
 *   first change. A snapshot of the workspace is taken first (`before`), so the rewind can be undone.
 * - Paths changed since Rein last wrote them are overwritten only when the request (or the person asked) says so.
 * - The conversation goes back by forking the session just before the turn's `turn/start`, with the prompt that
 *   opened the turn withdrawn from the fork's inbox; the source stays as it is, and the front end continues in the fork.
 * - `checkpoint/rewind` is logged in the source and in the fork; a dry run changes and logs nothing. Before the first
 *   file is touched, the `before` snapshot is logged as `checkpoint/undo-point` and the log synced, so an undo can
 *   restore it whatever interrupts the restore; `checkpoint/rewind` names that point (`point`) once it finished.
 * - Bad requests and missing snapshots throw a `RewindError` before anything changed.
 */
export function rewindCommand(options: RewindCommandOptions): ExtensionCommand {
  return async (input, _signal, context) => {
    const request = parse(input.args)
    const events = await options.history.events()
    const turns = checkpointTurns(events)
    const entry = turns.find((t) => t.turn === request.turn)
    if (!entry) {
      const range = turns.length ? `its turns are ${turns[0].turn} to ${turns.at(-1)?.turn}` : 'it has no turns yet'
      throw new RewindError('no-such-turn', `Session ${context.session.id} has no turn ${request.turn}; ${range}.`)
    }
    const wantCode = request.code ?? true
    const wantConversation = request.conversation ?? true
    if (!wantCode && !wantConversation) throw new RewindError('invalid-request', 'A rewind needs the code, the conversation or both; both were turned off.')
    const dryRun = request.dryRun === true
    const outcome: RewindOutcome = { turn: entry.turn }
    const sentences: string[] = []
    let after: { path: string; id: string | null }[] = []
    let point: number | undefined
    const interrupted = interruptedRestore(context.session)

    if (wantCode) {
      const target = firstSnapshotFrom(events, entry.startSeq)
      if (!target) {
        outcome.code = { target: null, changes: [], conflicts: [], kept: [] }
        sentences.push(nothingToRestore(events, entry.startSeq, entry.turn))
      } else {
        const result = await restoreCode({
          engine: options.engine,
          target: target.commit,
          events,
          knownFrom: target.seq,
          choice: request.conflicts ?? 'ask',
          dryRun,
          doing: `rewinding to turn ${entry.turn}`,
          answers: ANSWERS,
          context,
          flush: () => options.history.flush(),
          point: { of: 'rewind', turn: entry.turn, conversation: wantConversation },
          interrupted,
        })
        outcome.code = result.code
        if (result.status === 'cancelled') return { outcome: 'cancelled', message: result.message, data: json(outcome) }
        after = result.after
        if (result.status === 'restored') point = result.point
        sentences.push(codeSentence(entry.turn, result.code, dryRun))
      }
    }

    const notices = options.engine.takeNotices()
    if (dryRun) {
      if (wantConversation) sentences.push(`The conversation would continue in a fork made before turn ${entry.turn}.`)
      if (interrupted) sentences.push(interruptedNotice(context.session.id, interrupted.data))
      return { outcome: 'planned', message: [...sentences, ...notices].join(' '), data: json(outcome) }
    }
    if (interrupted && point !== undefined) {
      sentences.push(
        `An earlier restore in this session had been interrupted part way; \`rein rewind ${context.session.id} --undo\` undoes this rewind, and once more puts the files back as they were before that one.`,
      )
    } else if (interrupted) {
      sentences.push(interruptedNotice(context.session.id, interrupted.data))
    }
    sentences.push(...notices)

    const code = outcome.code?.target ? outcome.code : undefined
    // Nothing to restore and no fork asked for: nothing happened, so nothing is logged.
    if (!code && !wantConversation) return { outcome: 'nothing', message: sentences.join(' '), data: json(outcome) }
    const record = { turn: entry.turn, ...(code ? codeRecord(code, after) : {}) }
    // The point is a seq of this log; the fork's copy of the record goes without it (its seqs are its own).
    const own = { ...record, ...(point !== undefined ? { point } : {}) }
    if (wantConversation) {
      const seq = entry.startSeq > 0 ? entry.startSeq - 1 : null
      let fork
      try {
        fork = await options.history.fork(seq)
      } catch (error) {
        if (!code) throw error
        // The files are back already: the source must still say so, or the rewind could not be undone.
        context.record('checkpoint/rewind', own)
        const reason = error instanceof Error ? error.message : String(error)
        throw new RewindError('failed', `The files were put back as they were at the start of turn ${entry.turn} (rein rewind --undo restores them), but the conversation could not be forked: ${reason.replace(/\.$/, '')}.`)
      }
      try {
        fork.append('checkpoint/rewind', record)
      } finally {
        await fork.close()
      }
      outcome.fork = { id: fork.id, seq }
      sentences.push(`The conversation continues in session ${fork.id}, forked before turn ${entry.turn}; the old branch stays as it was.`)
    }
    context.record('checkpoint/rewind', { ...own, ...(outcome.fork ? { fork: { ...outcome.fork } } : {}) })
    return { outcome: 'rewound', message: sentences.join(' '), data: json(outcome) }
  }
}

/** The first snapshot with a commit at or after `fromSeq`, from any turn: the workspace before that point's first change. */
export function firstSnapshotFrom(events: readonly SessionEvent[], fromSeq: number): { commit: string; seq: number } | undefined {
  for (let seq = Math.max(0, fromSeq); seq < events.length; seq++) {
    const event = events[seq]
    if (event.type === 'checkpoint/created' && event.data.commit) return { commit: event.data.commit, seq }
  }
  return undefined
}

/** Why there is no snapshot to restore: the agent changed nothing, or every snapshot from then on failed. */
function nothingToRestore(events: readonly SessionEvent[], fromSeq: number, turn: number): string {
  const failed = events.find((e, seq) => seq >= fromSeq && e.type === 'checkpoint/created' && e.data.error)
  if (failed?.type === 'checkpoint/created') return `No snapshot was taken from turn ${turn} on (${failed.data.error?.replace(/\.$/, '')}), so there is no code to put back.`
  return `Rein changed no file from turn ${turn} on, so there is no code to put back.`
}

function parse(args: CommandInput['args']): z.infer<typeof rewindRequest> {
  const parsed = rewindRequest.safeParse(args ?? {})
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const where = issue.path.length ? `${issue.path.join('.')}: ` : ''
  throw new RewindError('invalid-request', `The rewind request is not valid (${where}${issue.message}); it needs a turn number of at least 1.`)
}

function codeSentence(turn: number, code: CodeRewind, dryRun: boolean): string {
  const kept = code.kept.length ? ` Kept as they are: ${code.kept.join(', ')}.` : ''
  const conflicts = dryRun && code.conflicts.length ? ` Changed since Rein last wrote them: ${code.conflicts.join(', ')}.` : ''
  return `${dryRun ? 'Would restore' : 'Restored'} the files as they were at the start of turn ${turn}: ${describeChanges(code)}.${conflicts}${kept}${leftAloneSentence(code)}`
}

/** The code fields of a `checkpoint/rewind`. */
export function codeRecord(code: CodeRewind, after: { path: string; id: string | null }[]) {
  return {
    ...(code.target ? { target: code.target } : {}),
    ...(code.before ? { before: code.before } : {}),
    changes: code.changes.map((c) => ({ ...c })),
    conflicts: [...code.conflicts],
    kept: [...code.kept],
    after: after.map((a) => ({ ...a })),
  }
}

/** A command's data is plain JSON; the outcome types are plain data by construction. */
export function json(outcome: RewindOutcome): JsonValue {
  return JSON.parse(JSON.stringify(outcome)) as JsonValue
}
