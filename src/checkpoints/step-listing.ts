import { workspaceBlobId } from './loose-objects.js'
import { BULK_PATHS, type Listing } from './staging.js'
import type { Change } from './engine.js'
import type { ContentId } from './tree-diff.js'

/** A path a step changed, with the content id it holds now (null where it is gone). */
export interface StepChange extends Change {
  now: ContentId
}

/**
 * What a step changed, read from the `git status` of its listing alone (docs/checkpoints.md, "Speed"), when the
 * shadow index holds exactly the tree of the snapshot compared with, which HEAD names: status then reports exactly
 * the paths whose content or mode differ between that snapshot and the workspace, so `git diff-tree` after writing
 * the index would list the same paths. The content id of each changed path is git's blob id of its bytes, computed
 * here. Undefined (the caller stages and diffs as before) when the listing does not have that shape: a path staged
 * differently from HEAD, or so many changes that hashing them twice would cost more than the processes saved.
 */
export function changesFromListing(listing: Listing, cwd: string): StepChange[] | undefined {
  if (listing.writes.length >= BULK_PATHS) return undefined
  const skipped = new Set(listing.skipped.map((s) => s.path))
  const changes: (StepChange & { raw: Buffer })[] = []
  for (const entry of listing.status) {
    // The index equals HEAD, so the first column must be blank (or `?`, untracked); anything else: ask git.
    if (entry.staged || !entry.unstaged) return undefined
    if (entry.path.endsWith('/') || skipped.has(entry.path)) continue
    if (entry.deleted) {
      if (!entry.untracked) changes.push({ path: entry.path, raw: entry.raw, kind: 'deleted', now: null })
      continue
    }
    // By its bytes: a name need not be UTF-8. Gone since status listed it: the caller stages and diffs instead.
    const now = workspaceBlobId(Buffer.concat([Buffer.from(`${cwd}/`), entry.raw]))
    if (now === undefined) return undefined
    changes.push({ path: entry.path, raw: entry.raw, kind: entry.untracked ? 'added' : 'modified', now })
  }
  // In the order `git diff-tree -r` gives (tree order, which is byte order of the full paths); status lists untracked last.
  return changes.sort((a, b) => Buffer.compare(a.raw, b.raw)).map(({ path, kind, now }) => ({ path, kind, now }))
}
