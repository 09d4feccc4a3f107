import type { ExtensionContext } from '../agent/extensions.js'
import type { SessionEvent } from '../session/events.js'
import { findConflicts, knownContent } from './conflicts.js'
import { restoreToken, type Checkpoints } from './engine.js'
import { RestoreFailed, type LeftAlone } from './restore.js'
import type { CodeRewind, ConflictChoice } from './rewind-types.js'
import type { UndoPoint } from './undo-points.js'
import { counted } from '../text/count.js'

/** A rewind that cannot run, with the one sentence a person reads. Nothing was changed when it is thrown. */
export class RewindError extends Error {
  override readonly name = 'RewindError'
  constructor(
    readonly code: 'invalid-request' | 'no-such-turn' | 'no-checkpoints' | 'snapshot-missing' | 'failed',
    message: string,
  ) {
    super(message)
  }
}

/** One code restore as a rewind or an undo asks for it. */
export interface CodeRestore {
  engine: Checkpoints
  /** The snapshot to put back. */
  target: string
  /** The log, and the seq from which Rein's own writes count (the target's `checkpoint/created`, or the rewind undone). */
  events: readonly SessionEvent[]
  knownFrom: number
  choice: ConflictChoice
  dryRun: boolean
  /** What is being done, for sentences: `rewinding to turn 3`, `undoing the rewind to turn 3`. */
  doing: string
  /** The flags (or fields) that answer the conflict question without asking, for the refusal sentence. */
  answers: string
  context: ExtensionContext
  /** Makes what `context.record` appended durable (the session log's flush, which syncs). */
  flush: () => Promise<void>
  /** What the undo point records: which command restores, for which turn (and for an undo, which seq it undoes). */
  point: { of: 'rewind' | 'undo'; turn: number; rewind?: number; conversation?: boolean }
  /** An earlier restore that was interrupted: its temporary files are removed before anything else. */
  interrupted?: UndoPoint
}

/** The outcome of a code restore: done (or planned), or cancelled with the sentence saying why. */
export type CodeRestoreResult =
  | { status: 'restored'; code: CodeRewind; after: { path: string; id: string | null }[]; point: number }
  | { status: 'planned'; code: CodeRewind; after: { path: string; id: string | null }[] }
  | { status: 'cancelled'; code: CodeRewind; message: string }

/**
 * Restores `target` the way every rewind does: find what the restore would change (leaving alone what no snapshot
 * holds: oversized, ignored, protected files and nested repositories) and which of those paths changed since Rein
 * last wrote them; decide about those (ask through the permission prompt, overwrite, or keep them); take a snapshot
 * of the workspace as it stands (`before`, what an undo restores); log it as `checkpoint/undo-point` and sync the log;
 * only then restore everything but the paths kept, file by file. A dry run stops after finding the conflicts. The
 * user's `.git` is never read or written (the engine's rule).
 *
 * Failures: one that comes before the undo point is durable changes nothing; one during the restore stops it, and
 * the sentence names what was and was not put back and the undo that brings back the rest.
 */
export async function restoreCode(step: CodeRestore): Promise<CodeRestoreResult> {
  const { engine, target } = step
  if (!(await engine.hasSnapshot(target))) {
    throw new RewindError(
      'snapshot-missing',
      `The snapshot ${target.slice(0, 12)} is gone from the checkpoint repository (${engine.gitDir}), so the files cannot be put back; nothing was changed.`,
    )
  }
  // What an interrupted restore left under temporary names goes first, so no snapshot holds it.
  if (step.interrupted) await engine.removeTemporaries(step.interrupted.data.paths.map((p) => p.path), step.interrupted.data.token)
  const plan = await engine.plan(target).catch((error: unknown) => {
    throw new RewindError('failed', `Nothing was changed: comparing the workspace with the snapshot failed (${reasonOf(error)}).`)
  })
  const changes = plan.changes
  const conflicts = findConflicts(changes, knownContent(step.events, step.knownFrom))
  const plain = changes.map(({ path, kind }) => ({ path, kind }))
  const leftAlone = plan.leftAlone.map((l) => ({ ...l }))
  const described = (extra: Partial<CodeRewind> = {}): CodeRewind => ({ target, changes: plain, conflicts, kept: [], ...(leftAlone.length ? { leftAlone } : {}), ...extra })
  if (step.dryRun) return { status: 'planned', code: described(), after: [] }

  let overwrite = step.choice === 'overwrite'
  if (conflicts.length && step.choice === 'ask') {
    const answer = await step.context.ask({
      call: { turn: 0, step: 0, callId: `rewind-${target}`, name: 'rewind', arguments: JSON.stringify({ target, conflicts }), input: { target, conflicts } },
      reason: `${capitalized(step.doing)} would overwrite ${conflicts.length === 1 ? 'a file' : `${conflicts.length} files`} changed since Rein last wrote ${conflicts.length === 1 ? 'it' : 'them'}: ${conflicts.join(', ')}. Allow to overwrite ${conflicts.length === 1 ? 'it' : 'them'}; deny to keep ${conflicts.length === 1 ? 'it' : 'them'} as ${conflicts.length === 1 ? 'it is' : 'they are'} and restore the rest.`,
    })
    if (!answer || answer.outcome === 'unanswered') {
      return {
        status: 'cancelled',
        code: described(),
        message: `Nothing was changed: ${step.doing} would overwrite files changed since Rein last wrote them (${conflicts.join(', ')}), and nothing could ask you; ${step.answers}.`,
      }
    }
    overwrite = answer.outcome !== 'deny'
  }
  const kept = overwrite ? [] : conflicts
  const keptSet = new Set(kept)
  const planned = changes.filter((c) => !keptSet.has(c.path))
  const undo = `rein rewind ${step.context.session.id} --undo`

  let before: string
  try {
    before = (await engine.snapshot(`before ${step.doing}`, { modesOf: planned.filter((c) => c.now !== null).map((c) => c.path) })).commit
  } catch (error) {
    throw new RewindError('failed', `Nothing was changed: the snapshot taken before ${step.doing} failed (${reasonOf(error)}).`)
  }
  const token = restoreToken()
  let point: number
  try {
    step.context.record('checkpoint/undo-point', {
      ...step.point,
      target,
      before,
      paths: planned.map(({ path, kind }) => ({ path, kind })),
      after: planned.map((c) => ({ path: c.path, id: c.was })),
      token,
    })
    point = step.context.session.last('checkpoint/undo-point')?.seq ?? -1
    // Durable before the first file is touched: after any interruption the log says how to get back.
    await step.flush()
  } catch (error) {
    throw new RewindError('failed', `Nothing was changed: the undo point for ${step.doing} could not be written to the session log (${reasonOf(error)}).`)
  }
  let restored: { path: string; kind: 'added' | 'modified' | 'deleted' }[]
  let left: LeftAlone[]
  try {
    const result = await engine.restorePlanned(plan, kept, token)
    restored = result.restored
    left = result.leftAlone
  } catch (error) {
    if (!(error instanceof RestoreFailed)) throw new RewindError('failed', `${capitalized(step.doing)} stopped before putting back any file (${reasonOf(error)}); \`${undo}\` makes sure every file is as it was before.`)
    throw new RewindError(
      'failed',
      `${capitalized(step.doing)} stopped part way (${reasonOf(error)}): put back ${named(error.restored.map((c) => c.path))}; not put back ${named(error.notRestored.map((c) => c.path))}; \`${undo}\` puts every file back as it was before.`,
    )
  }
  const done = new Set(restored.map((c) => c.path))
  const after = changes.filter((c) => done.has(c.path)).map((c) => ({ path: c.path, id: c.was }))
  return { status: 'restored', code: { ...described({ before, changes: restored, kept }), ...(left.length ? { leftAlone: left.map((l) => ({ ...l })) } : {}) }, after, point }
}

/** Why a path was left as it is, for sentences. */
const LEFT_ALONE_WHY: Record<LeftAlone['reason'], string> = {
  'too-large': 'over the size limit',
  'nested-repository': 'in a nested repository',
  ignored: 'ignored',
  changed: 'changed while the rewind ran',
  blocked: 'something else is in its place',
  submodule: 'a submodule',
}

/** ` Left as they are: big.log (over the size limit).`, or nothing when the restore left nothing alone. */
export function leftAloneSentence(code: CodeRewind): string {
  if (!code.leftAlone?.length) return ''
  const list = code.leftAlone.slice(0, 10).map((l) => `${l.path} (${LEFT_ALONE_WHY[l.reason]})`)
  const more = code.leftAlone.length > 10 ? ` and ${code.leftAlone.length - 10} more` : ''
  return ` Left as they are: ${list.join(', ')}${more}.`
}

/** A one-line summary of what a restore did (or would do): `2 modified, 1 removed, 1 brought back`. */
export function describeChanges(code: CodeRewind): string {
  // Seen from the target: a path the target lacks was added since (a restore removes it), and the other way round.
  const count = (kind: string) => code.changes.filter((c) => c.kind === kind).length
  const parts = (
    [
      [count('modified'), 'put back'],
      [count('added'), 'removed'],
      [count('deleted'), 'brought back'],
    ] as const
  )
    .filter(([n]) => n)
    .map(([n, what]) => `${counted(n, 'file')} ${what}`)
  return parts.length ? parts.join(', ') : 'no file differs'
}

/** Why a restore stopped, as a clause: the error's message without its closing full stop. */
function reasonOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\.$/, '')
}

/** `none`, or up to ten paths and how many more. */
function named(paths: readonly string[]): string {
  if (!paths.length) return 'none'
  const shown = paths.slice(0, 10).join(', ')
  return paths.length > 10 ? `${shown} and ${paths.length - 10} more` : shown
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
