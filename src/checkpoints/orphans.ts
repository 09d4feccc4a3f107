import { closeSync, openSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { entriesOf, privateIndexInUse } from './private-index.js'
import type { ShadowGit } from './shadow-git.js'

/**
 * Removes what a `git add` that failed (a full `$REIN_HOME`) wrote: loose blobs written since `sinceMs` that neither
 * the shadow index nor any ref reaches, and git's temporary object and pack files from that time. Returns how many
 * files were removed.
 *
 * Why this is safe beside another Rein process: the cleanup holds `index.lock` itself (git's own lock, so no
 * `git add` runs meanwhile; when another process holds it, nothing is removed), and a blob another process's
 * finished `add` wrote is in the index. Trees and commits are never removed (another process's snapshot may be
 * between `write-tree` and `update-ref`), and a blob that existed before (git only freshened its time) is reachable
 * from a snapshot or the index, so it stays. A private index (private-index.ts) names blobs no index or ref reaches
 * yet, so nothing is removed while a live process has one (`own`, the failed writer's own, aside: it is dropped).
 */
export async function dropOrphanBlobs(git: ShadowGit, gitDir: string, sinceMs: number, own?: string): Promise<number> {
  const lock = join(gitDir, 'index.lock')
  try {
    closeSync(openSync(lock, 'wx'))
  } catch {
    // Another git holds the index (or the disk cannot take even an empty file): leave the objects for a later try.
    return 0
  }
  try {
    // Another process's deferred writes may have made blobs that only its private index names: left for retention's gc.
    if (privateIndexInUse(gitDir, own)) return 0
    return await dropUnderLock(git, gitDir, sinceMs)
  } finally {
    try {
      unlinkSync(lock)
    } catch {
      // Already gone: nothing to release.
    }
  }
}

async function dropUnderLock(git: ShadowGit, gitDir: string, sinceMs: number): Promise<number> {
  // File times may be coarser than the clock: a second of slack, at worst a few older unreachable blobs are looked at.
  const since = sinceMs - 1000
  const objects = join(gitDir, 'objects')
  const candidates: { id: string; file: string }[] = []
  let removed = 0
  for (const fan of entriesOf(objects)) {
    if (!/^[0-9a-f]{2}$/.test(fan)) continue
    for (const name of entriesOf(join(objects, fan))) {
      const file = join(objects, fan, name)
      if (!isNewer(file, since)) continue
      if (name.startsWith('tmp_obj_')) removed += remove(file)
      else if (/^[0-9a-f]{38}([0-9a-f]{24})?$/.test(name)) candidates.push({ id: fan + name, file })
    }
  }
  for (const name of entriesOf(join(objects, 'pack'))) {
    const file = join(objects, 'pack', name)
    if (name.startsWith('tmp_') && isNewer(file, since)) removed += remove(file)
  }
  if (!candidates.length) return removed
  const kept = new Set<string>()
  // The shadow index itself, named: `git` may be bound to a private index, which is dropped after this failure.
  for (const line of (await git(['ls-files', '-s', '-z'], undefined, false, join(gitDir, 'index'))).toString('latin1').split('\0')) {
    const id = line.split(' ')[1]
    if (id) kept.add(id)
  }
  for (const line of (await git(['rev-list', '--objects', '--all'])).toString('latin1').split('\n')) {
    const id = line.slice(0, line.indexOf(' ') < 0 ? undefined : line.indexOf(' '))
    if (id) kept.add(id)
  }
  const loose = candidates.filter((c) => !kept.has(c.id))
  if (!loose.length) return removed
  const types = (await git(['cat-file', '--batch-check=%(objectname) %(objecttype)'], loose.map((c) => `${c.id}\n`).join(''))).toString('latin1')
  const blobs = new Set(
    types
      .split('\n')
      .map((line) => line.split(' '))
      .filter(([, type]) => type === 'blob')
      .map(([id]) => id),
  )
  for (const c of loose) if (blobs.has(c.id)) removed += remove(c.file)
  return removed
}

/**
 * Removes git's temporary pack files (`objects/pack/tmp_*`) written since `sinceMs`: what a bulk `git add` stopped
 * part way leaves (its blobs stream into one pack that only becomes a pack when the add finishes). Under
 * `index.lock`, as `dropOrphanBlobs`, so another process's `git add` is never writing the file removed, and not while
 * another live process has a private index (its writes hold no `index.lock`).
 */
export function dropTemporaryPacks(gitDir: string, sinceMs: number, own?: string): number {
  const lock = join(gitDir, 'index.lock')
  try {
    closeSync(openSync(lock, 'wx'))
  } catch {
    // Another git holds the index: its add may be writing a temporary pack; retention's gc removes ours later.
    return 0
  }
  let removed = 0
  try {
    if (privateIndexInUse(gitDir, own)) return 0
    const pack = join(gitDir, 'objects', 'pack')
    for (const name of entriesOf(pack)) if (name.startsWith('tmp_') && isNewer(join(pack, name), sinceMs - 1000)) removed += remove(join(pack, name))
  } finally {
    remove(lock)
  }
  return removed
}

function isNewer(file: string, since: number): boolean {
  try {
    return statSync(file).mtimeMs >= since
  } catch {
    // Gone meanwhile (another process's git renamed its temporary file): not ours to remove.
    return false
  }
}

function remove(file: string): number {
  try {
    unlinkSync(file)
    return 1
  } catch {
    // Already gone.
    return 0
  }
}
