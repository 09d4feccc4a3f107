import { createHash, randomBytes } from 'node:crypto'
import { closeSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { deflateSync } from 'node:zlib'

/**
 * Git objects and refs written by Rein itself, without a git process (docs/checkpoints.md, "Speed"): a snapshot's
 * commit and its two ref updates were two processes per step. The formats are git's own: a loose object is the
 * zlib-deflated `<type> <size>\0<content>` at `objects/<2 hex>/<38 hex>`, named by its SHA-1; a loose ref is
 * `<id>\n`, written under `<ref>.lock` (git's lock protocol) and renamed into place. Anything unusual (a lock held,
 * an error) returns undefined or false, and the caller asks git instead.
 */

/** The git id of a blob with these bytes (SHA-1 of `blob <size>\0<bytes>`). */
export function blobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
}

/**
 * The blob id of what a workspace path holds as git would store it (no conversion: the shadow repository's
 * attributes turn every filter off): a file's bytes, a symlink's target. Undefined when it is gone or is a directory.
 */
export function workspaceBlobId(path: string | Buffer): string | undefined {
  try {
    const stat = lstatSync(path)
    if (stat.isSymbolicLink()) return blobId(readlinkSync(path, { encoding: 'buffer' }))
    if (!stat.isFile()) return undefined
    return blobId(readFileSync(path))
  } catch {
    // Removed since git listed it: the caller treats the path as gone.
    return undefined
  }
}

/** Writes a loose object and returns its id; undefined when it could not (the caller asks git). */
export function writeLooseObject(gitDir: string, type: 'commit', content: Buffer): string | undefined {
  const body = Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content])
  const id = createHash('sha1').update(body).digest('hex')
  const target = join(gitDir, 'objects', id.slice(0, 2), id.slice(2))
  const temporary = join(gitDir, 'objects', id.slice(0, 2), `tmp_obj_rein_${randomBytes(6).toString('hex')}`)
  try {
    mkdirSync(dirname(target), { recursive: true })
    writeExclusive(temporary, deflateSync(body), 0o444)
    try {
      linkSync(temporary, target)
    } catch (error) {
      // Already there: the same id is the same content.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    return id
  } catch {
    // A full disk or a read-only store: git reports such a failure better.
    return undefined
  } finally {
    try {
      unlinkSync(temporary)
    } catch {
      // Never created.
    }
  }
}

/** A commit object's text, as `git commit-tree` writes it (author and committer Rein, UTC). */
export function commitText(tree: string, parent: string | undefined, message: string, now = Date.now()): Buffer {
  const who = `Rein <checkpoints@rein.invalid> ${Math.floor(now / 1000)} +0000`
  return Buffer.from(`tree ${tree}\n${parent ? `parent ${parent}\n` : ''}author ${who}\ncommitter ${who}\n\n${message}`, 'utf8')
}

/**
 * Points each ref (a path under the git directory: `HEAD`, `refs/...`) at its id, as one transaction of git's lock
 * protocol: every `<ref>.lock` is created first (exclusively), then each is renamed over its ref. False, with nothing
 * changed, when a lock is held or anything fails before the first rename; the caller runs `git update-ref` then.
 */
export function writeRefs(gitDir: string, updates: readonly { ref: string; id: string }[]): boolean {
  const locks: string[] = []
  try {
    for (const { ref, id } of updates) {
      const lock = join(gitDir, `${ref}.lock`)
      mkdirSync(dirname(lock), { recursive: true })
      writeExclusive(lock, Buffer.from(`${id}\n`), 0o666)
      locks.push(lock)
    }
  } catch {
    for (const lock of locks) unlinkSync(lock)
    return false
  }
  for (const [i, { ref }] of updates.entries()) {
    try {
      renameSync(locks[i], join(gitDir, ref))
    } catch {
      // The caller's `git update-ref` writes every ref again, the ones renamed already included.
      for (const lock of locks.slice(i)) unlinkSync(lock)
      return false
    }
  }
  return true
}

function writeExclusive(path: string, bytes: Buffer, mode: number): void {
  const fd = openSync(path, 'wx', mode)
  try {
    writeSync(fd, bytes)
  } finally {
    closeSync(fd)
  }
}
