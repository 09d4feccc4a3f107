import type { SessionEvent } from '../session/events.js'
import { stepChanges, type StepChanges } from '../checkpoints/step-diff.js'
import type { ChangeKind } from '../checkpoints/engine.js'

/** One step that changed a file. */
export interface FileStep {
  turn: number
  step: number
  kind: ChangeKind
}

/** A file the session changed: every step that changed it, in order; `kind` is what it is now against before the first. */
export interface ChangedFile {
  path: string
  kind: ChangeKind
  steps: FileStep[]
}

/**
 * Every file the session's steps changed, from their `checkpoint/changes`, in the order first changed. A file added
 * and then deleted counts as deleted only if it existed before (else it is left out: the session changed nothing).
 */
export function changedFiles(events: readonly SessionEvent[]): ChangedFile[] {
  const files = new Map<string, ChangedFile>()
  for (const e of events) {
    if (e.type !== 'checkpoint/changes') continue
    for (const p of e.data.paths) {
      const file = files.get(p.path) ?? { path: p.path, kind: p.kind, steps: [] }
      file.steps.push({ turn: e.data.turn, step: e.data.step, kind: p.kind })
      files.set(p.path, file)
    }
  }
  const out: ChangedFile[] = []
  for (const f of files.values()) {
    const first = f.steps[0].kind
    const last = f.steps[f.steps.length - 1].kind
    if (first === 'added' && last === 'deleted') continue
    f.kind = first === 'added' ? 'added' : last === 'deleted' ? 'deleted' : 'modified'
    out.push(f)
  }
  return out
}

/**
 * Where a file's whole-session diff reads its two versions: "before" the snapshot taken before the first step that
 * changed it, "after" the state after the last (the next snapshot, or the workspace now). Undefined for a path the
 * session did not change or whose first snapshot is not logged.
 */
export function fileSpan(events: readonly SessionEvent[], file: ChangedFile): Pick<StepChanges, 'before' | 'after'> | undefined {
  const first = stepChanges(events, file.steps[0].turn, file.steps[0].step)
  const lastStep = file.steps[file.steps.length - 1]
  const last = stepChanges(events, lastStep.turn, lastStep.step)
  if (!first || !last) return undefined
  return { before: first.before, after: last.after }
}
