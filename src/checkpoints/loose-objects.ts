import { createHash, randomBytes } from 'node:crypto'
import { closeSync, constants, fstatSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, readSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { deflateSync } from 'node:zlib'

/**
 * Git objects and refs written by Rein itself, without a git process (docs/checkpoints.md, "Speed"): a snapshot's
 * commit and its two ref updates were two processes per step. The formats are git's own: a loose object is the
 * zlib-deflated `<type> <size>\0<content>` at `objects/<2 hex>/<38 hex>`, named by its SHA-1; a loose ref is
 * `<id>\n`. Anything unusual (a lock held, an error) returns undefined or false, and the caller asks git instead.
 *
 * What holds for a ref update (`writeRefs`):
 * - It is made under git's own lock, `<ref>.lock`, created exclusively: no git writes the ref meanwhile, and a lock
 *   left by a killed process is healed like any git left (locks.ts).
 * - A ref file that already holds an id of the same length is overwritten in place: one 41-byte write at offset 0,
 *   inside one disk sector, so at any instant (a kill, a power cut) the file holds the old id or the new one, never
 *   a mix and never nothing. Git itself renames a new file over the ref; on ext4 a rename over an existing file
 *   flushes the new file's data first (`auto_da_alloc`), which cost 3–12 ms per ref on the shared machine, against
 *   about 0.05 ms for the write.
 * - Any other ref (new, symbolic, of another length) is written into its lock and renamed into place, as git does.
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
    // A small window and level: a commit is a few hundred bytes, and zlib's default state (256 KiB) cost 1.5 ms to set up.
    writeExclusive(temporary, deflateSync(body, { level: 1, windowBits: 9, memLevel: 1 }), 0o444)
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
 * protocol: every `<ref>.lock` is created first (exclusively), then each ref is written (see the invariants above)
 * and its lock released. False, with nothing changed, when a lock is held or anything fails before the first ref is
 * written; the caller runs `git update-ref` then, which writes every ref again.
 */
export function writeRefs(gitDir: string, updates: readonly { ref: string; id: string }[]): boolean {
  /** The locks this call holds: a lock renamed into place is no longer ours (another process may take it anew). */
  const held = new Set<string>()
  const release = (): void => {
    for (const lock of held) {
      try {
        unlinkSync(lock)
      } catch {
        // Gone already: nothing to release.
      }
    }
  }
  try {
    for (const { ref } of updates) {
      const lock = join(gitDir, `${ref}.lock`)
      writeExclusive(lock, Buffer.alloc(0), 0o666)
      held.add(lock)
    }
  } catch {
    release()
    return false
  }
  for (const { ref, id } of updates) {
    const lock = join(gitDir, `${ref}.lock`)
    try {
      const target = join(gitDir, ref)
      if (overwriteId(target, id)) continue
      writeFileSync(lock, `${id}\n`)
      renameSync(lock, target)
      held.delete(lock)
    } catch {
      release()
      return false
    }
  }
  release()
  return true
}

const LOOSE_ID = /^[0-9a-f]+\n$/

/** Writes `id` over the id a loose ref file holds, in place; false (nothing written) when the file is anything else. */
function overwriteId(file: string, id: string): boolean {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_NOFOLLOW)
  } catch {
    // No such ref yet: it is renamed into place.
    return false
  }
  try {
    const text = Buffer.from(`${id}\n`)
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.size !== text.length) return false
    const was = Buffer.alloc(text.length)
    if (readSync(fd, was, 0, was.length, 0) !== was.length || !LOOSE_ID.test(was.toString('latin1'))) return false
    return writeSync(fd, text, 0, text.length, 0) === text.length
  } finally {
    closeSync(fd)
  }
}

/** Creates `path` exclusively with `bytes`, making its directory when it is missing. */
function writeExclusive(path: string, bytes: Buffer, mode: number): void {
  let fd: number
  try {
    fd = openSync(path, 'wx', mode)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    mkdirSync(dirname(path), { recursive: true })
    fd = openSync(path, 'wx', mode)
  }
  try {
    if (bytes.length) writeSync(fd, bytes)
  } finally {
    closeSync(fd)
  }
}
