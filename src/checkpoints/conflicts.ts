import type { SessionEvent } from '../session/events.js'
import type { ContentChange, ContentId } from './tree-diff.js'

/** What Rein last knew a path to hold: a content id, or `unrecorded` when an older log named the path without one. */
export type KnownContent = ContentId | 'unrecorded'

/**
 * The content Rein itself last left in each path, read from the log from seq `from` on: every `checkpoint/changes`
 * (the agent's steps), every rewind or undo (what a restore put back) and every undo point (what a restore was about
 * to put back: an interrupted one may have written any of it), later entries winning. A path missing from the map
 * was not changed by Rein in that stretch of the log.
 */
export function knownContent(events: readonly SessionEvent[], from: number): Map<string, KnownContent> {
  const known = new Map<string, KnownContent>()
  for (let seq = Math.max(0, from); seq < events.length; seq++) {
    const event = events[seq]
    if (event.type === 'checkpoint/changes') {
      if (event.data.after) for (const { path, id } of event.data.after) known.set(path, id)
      else for (const { path } of event.data.paths) known.set(path, 'unrecorded')
    } else if ((event.type === 'checkpoint/rewind' || event.type === 'checkpoint/rewind-undone' || event.type === 'checkpoint/undo-point') && event.data.after) {
      for (const { path, id } of event.data.after) known.set(path, id)
    }
  }
  return known
}

/**
 * The paths a restore would overwrite or remove that changed since Rein last wrote them, sorted. A path counts when
 * its content now differs from what Rein last left there, or when Rein never wrote it since the target yet it differs
 * from the target (someone else changed it). A path an older log named without content ids is taken as Rein's own.
 */
export function findConflicts(changes: readonly ContentChange[], known: ReadonlyMap<string, KnownContent>): string[] {
  const conflicts: string[] = []
  for (const change of changes) {
    const last = known.get(change.path)
    if (last === 'unrecorded') continue
    if (last === undefined || last !== change.now) conflicts.push(change.path)
  }
  return conflicts.sort()
}
