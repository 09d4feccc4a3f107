import type { Change, ChangeKind } from './engine.js'

/** A git blob id (or a link's target blob); `null` where the path does not exist. */
export type ContentId = string | null

/**
 * One path that differs between an older and a newer tree, with the content id and mode on each side. `was` is the
 * older side (the snapshot a rewind restores), `now` the newer (the workspace as it stands).
 */
export interface ContentChange extends Change {
  was: ContentId
  now: ContentId
  /** The newer side's git mode (`100644`, `100755`, `120000`); absent where the path is gone. */
  nowMode?: string
}

const ABSENT = /^0+$/

/**
 * Reads `git diff-tree -r -z --no-renames --raw <older> <newer>`: records `:<mode> <mode> <oid> <oid> <status>`,
 * NUL, path, NUL. An all-zero oid or mode means the path is absent on that side.
 */
export function parseRawDiff(out: Buffer): ContentChange[] {
  const parts = out.toString('utf8').split('\0')
  const changes: ContentChange[] = []
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [, newMode, oldId, newId, status] = parts[i].replace(/^:/, '').split(' ')
    const path = parts[i + 1]
    const kind: ChangeKind = status === 'A' ? 'added' : status === 'D' ? 'deleted' : 'modified'
    const now = ABSENT.test(newId) ? null : newId
    changes.push({
      path,
      kind,
      was: ABSENT.test(oldId) ? null : oldId,
      now,
      ...(now !== null && !ABSENT.test(newMode) ? { nowMode: newMode } : {}),
    })
  }
  return changes
}
