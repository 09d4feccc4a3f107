import type { ExtensionContext } from '../agent/extensions.js'
import type { SessionEvent } from '../session/events.js'
import { findConflicts, knownContent } from './conflicts.js'
import type { Checkpoints } from './engine.js'
import type { CodeRewind, ConflictChoice } from './rewind-types.js'

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
}

/** The outcome of a code restore: done (or planned), or cancelled with the sentence saying why. */
export type CodeRestoreResult =
  | { status: 'restored' | 'planned'; code: CodeRewind; after: { path: string; id: string | null }[] }
  | { status: 'cancelled'; code: CodeRewind; message: string }

/**
 * Restores `target` the way every rewind does: find what the restore would change and which of those paths changed
 * since Rein last wrote them; decide about those (ask through the permission prompt, overwrite, or keep them); take a
 * snapshot of the workspace as it stands (`before`, what an undo restores); then restore everything but the paths
 * kept. A dry run stops after finding the conflicts. The user's `.git` is never read or written (the engine's rule).
 */
export async function restoreCode(step: CodeRestore): Promise<CodeRestoreResult> {
  const { engine, target } = step
  if (!(await engine.hasSnapshot(target))) {
    throw new RewindError(
      'snapshot-missing',
      `The snapshot ${target.slice(0, 12)} is gone from the checkpoint repository (${engine.gitDir}), so the files cannot be put back; nothing was changed.`,
    )
  }
  const changes = await engine.compare(target)
  const conflicts = findConflicts(changes, knownContent(step.events, step.knownFrom))
  const plain = changes.map(({ path, kind }) => ({ path, kind }))
  if (step.dryRun) return { status: 'planned', code: { target, changes: plain, conflicts, kept: [] }, after: [] }

  let overwrite = step.choice === 'overwrite'
  if (conflicts.length && step.choice === 'ask') {
    const answer = await step.context.ask({
      call: { turn: 0, step: 0, callId: `rewind-${target}`, name: 'rewind', arguments: JSON.stringify({ target, conflicts }), input: { target, conflicts } },
      reason: `${capitalized(step.doing)} would overwrite ${conflicts.length === 1 ? 'a file' : `${conflicts.length} files`} changed since Rein last wrote ${conflicts.length === 1 ? 'it' : 'them'}: ${conflicts.join(', ')}. Allow to overwrite ${conflicts.length === 1 ? 'it' : 'them'}; deny to keep ${conflicts.length === 1 ? 'it' : 'them'} as ${conflicts.length === 1 ? 'it is' : 'they are'} and restore the rest.`,
    })
    if (!answer || answer.outcome === 'unanswered') {
      return {
        status: 'cancelled',
        code: { target, changes: plain, conflicts, kept: [] },
        message: `Nothing was changed: ${step.doing} would overwrite files changed since Rein last wrote them (${conflicts.join(', ')}), and nothing could ask you; ${step.answers}.`,
      }
    }
    overwrite = answer.outcome !== 'deny'
  }
  const kept = overwrite ? [] : conflicts
  const before = (await engine.snapshot(`before ${step.doing}`)).commit
  const keptSet = new Set(kept)
  const restored = await engine.restoreExcept(target, kept).catch((error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error)
    throw new RewindError(
      'failed',
      `Putting the files back failed part way (${reason.replace(/\.$/, '')}); the workspace as it was just before is snapshot ${before} in ${engine.gitDir}.`,
    )
  })
  const after = changes.filter((c) => !keptSet.has(c.path)).map((c) => ({ path: c.path, id: c.was }))
  return { status: 'restored', code: { target, before, changes: restored, conflicts, kept }, after }
}

/** A one-line summary of what a restore did (or would do): `2 modified, 1 removed, 1 brought back`. */
export function describeChanges(code: CodeRewind): string {
  // Seen from the target: a path the target lacks was added since (a restore removes it), and the other way round.
  const count = (kind: string) => code.changes.filter((c) => c.kind === kind).length
  const parts = [
    [count('modified'), 'put back'],
    [count('added'), 'removed'],
    [count('deleted'), 'brought back'],
  ]
    .filter(([n]) => n)
    .map(([n, what]) => `${n} ${n === 1 ? 'file' : 'files'} ${what}`)
  return parts.length ? parts.join(', ') : 'no file differs'
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
