import { randomBytes } from 'node:crypto'
import { chmodSync, closeSync, constants, fsyncSync, mkdirSync, openSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { chmod, mkdir, open, realpath, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { syncDirectory, syncDirectoryAsync } from './sync-directory.js'

/**
 * How `writeFileAtomic` treats modes and the directory. Without `mode` an existing file keeps its mode and a new one
 * gets 0666 less the umask.
 */
export interface AtomicWriteOptions {
  /** The file's mode whatever the umask or the old file's mode (0600 for trust records and personal settings). */
  mode?: number
  /** Missing parent directories are created with this mode, and the parent is set to it (0700 for private files). */
  directoryMode?: number
  /**
   * The caller resolved `file`'s directory to its real path and checked it (the file tools): just before the rename
   * the directory is resolved again, and when it now leads elsewhere (swapped for a symlink) the write is refused with
   * `WriteMovedError`. Node has no `renameat`, so a swap between this check and the rename itself is not caught.
   */
  checkedDirectory?: boolean
}

/** Owner-only file (0600) in an owner-only directory (0700) whatever the umask: trust records are nobody else's business. */
export const PRIVATE_FILE: AtomicWriteOptions = { mode: 0o600, directoryMode: 0o700 }

/**
 * Replaces or creates `file` so that a reader, or a crash at any instant, sees the old bytes or the new ones and never
 * a mix: the bytes go to a fresh temporary file beside it (exclusive create), which is fsynced, given its mode,
 * renamed over `file`, and then the directory is fsynced so the rename itself survives a crash. On failure the
 * temporary file is removed and the old file is untouched. `created` says whether `file` did not exist before.
 */
export async function writeFileAtomic(file: string, data: string | Buffer, options: AtomicWriteOptions = {}): Promise<{ created: boolean }> {
  const dir = path.dirname(file)
  await mkdir(dir, { recursive: true, ...(options.directoryMode !== undefined ? { mode: options.directoryMode } : {}) })
  if (options.directoryMode !== undefined) await chmod(dir, options.directoryMode)
  const existing = await stat(file).then(
    (s) => s.mode & 0o7777,
    // No file yet (or it cannot be seen): the write creates it.
    () => undefined,
  )
  const temp = temporaryName(file)
  const handle = await open(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, options.mode ?? 0o666)
  try {
    try {
      await handle.writeFile(data)
      await handle.sync()
    } finally {
      await handle.close()
    }
    if (options.checkedDirectory) {
      const now = await realpath(dir).catch(() => undefined)
      if (now !== dir) throw new WriteMovedError(dir, now)
    }
    const mode = options.mode ?? existing
    if (mode !== undefined) await chmod(temp, mode)
    await rename(temp, file)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
  await syncDirectoryAsync(dir)
  return { created: existing === undefined }
}

/**
 * `writeFileAtomic` for callers that are synchronous all the way up (settings and trust records, written while a
 * command starts or answers a prompt), with the same guarantees and options.
 */
export function writeFileAtomicSync(file: string, data: string | Buffer, options: AtomicWriteOptions = {}): { created: boolean } {
  const dir = path.dirname(file)
  mkdirSync(dir, { recursive: true, ...(options.directoryMode !== undefined ? { mode: options.directoryMode } : {}) })
  if (options.directoryMode !== undefined) chmodSync(dir, options.directoryMode)
  let existing: number | undefined
  try {
    existing = statSync(file).mode & 0o7777
  } catch {
    // No file yet (or it cannot be seen): the write creates it.
    existing = undefined
  }
  const temp = temporaryName(file)
  const fd = openSync(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, options.mode ?? 0o666)
  try {
    try {
      writeFileSync(fd, data)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    if (options.checkedDirectory) {
      let now: string | undefined
      try {
        now = realpathSync(dir)
      } catch {
        now = undefined
      }
      if (now !== dir) throw new WriteMovedError(dir, now)
    }
    const mode = options.mode ?? existing
    if (mode !== undefined) chmodSync(temp, mode)
    renameSync(temp, file)
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
  syncDirectory(dir)
  return { created: existing === undefined }
}

/** A hidden name beside `file` that no other writer picks: the exclusive create fails rather than share it. */
function temporaryName(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.rein-${randomBytes(4).toString('hex')}.tmp`)
}

/** The directory a write was checked against now resolves elsewhere; nothing was written. */
export class WriteMovedError extends Error {
  constructor(dir: string, now: string | undefined) {
    super(
      now === undefined
        ? `its directory ${dir} vanished while writing, so nothing was written`
        : `its directory ${dir} now resolves to ${now} (replaced by a link while writing), so nothing was written there`,
    )
  }
}
