import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { commitText, writeLooseObject, writeRefs } from './loose-objects.js'
import { LEGACY_REF, sessionRef } from './refs.js'
import type { ShadowGit } from './shadow-git.js'

/** A snapshot commit, the tree it holds and how many files. */
export interface SnapshotHead {
  commit: string
  tree: string
  files: number
}

/**
 * A commit of `tree` after `parent`; parentless when the parent was pruned meanwhile (by another process). Written
 * without git (loose-objects.ts) when the parent is a loose object, so surely present, and ids are SHA-1; by
 * `git commit-tree` otherwise.
 */
export async function commitSnapshot(git: ShadowGit, gitDir: string, tree: string, parent: string | undefined, message: string): Promise<string> {
  if (tree.length === 40 && (!parent || existsSync(join(gitDir, 'objects', parent.slice(0, 2), parent.slice(2))))) {
    const id = writeLooseObject(gitDir, 'commit', commitText(tree, parent, message))
    if (id) return id
  }
  // The message (with the modes block, which may be long) goes on stdin: an argument has a length limit.
  const run = (args: string[]) => git(['commit-tree', tree, ...args], message).then((out) => out.toString().trim())
  if (!parent) return run([])
  return run(['-p', parent]).catch(async (error: unknown) => {
    const present = await git(['cat-file', '-e', `${parent}^{commit}`]).then(
      () => true,
      () => false,
    )
    if (present) throw error
    return run([])
  })
}

/**
 * The session's ref and HEAD move together to `commit`, with no reflog (it would keep every snapshot alive past
 * retention): written here (loose-objects.ts), or by one `git update-ref` transaction when a lock is held.
 */
export async function moveRefs(git: ShadowGit, gitDir: string, ref: string, commit: string): Promise<void> {
  if (writeRefs(gitDir, [{ ref, id: commit }, { ref: 'HEAD', id: commit }])) return
  await git(['-c', 'core.logAllRefUpdates=false', 'update-ref', '--no-deref', '--stdin'], `update ${ref} ${commit}\nupdate HEAD ${commit}\n`)
}

/** A commit's tree and file count, asked of git. */
export async function describeCommit(git: ShadowGit, commit: string): Promise<SnapshotHead> {
  const tree = (await git(['rev-parse', `${commit}^{tree}`])).toString().trim()
  const files = countEntries(await git(['ls-tree', '-r', '-z', '--name-only', tree]))
  return { commit, tree, files }
}

/** A session's ref, or the error that its id cannot name one; no session means the legacy workspace-wide chain. */
export function refFor(sessionId: string | undefined): string | Error {
  if (sessionId === undefined) return LEGACY_REF
  try {
    return sessionRef(sessionId)
  } catch (error) {
    return error as Error
  }
}

export function countEntries(out: Buffer): number {
  let count = 0
  for (const byte of out) if (byte === 0) count++
  return count
}
