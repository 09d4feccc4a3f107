import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { chmod, mkdir, open, realpath, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'

/**
 * Replaces or creates `file` so that a reader sees either the old bytes or the new ones, never a mix: the bytes go
 * to a temp file in the same directory, are fsynced, take the old file's mode, and are renamed over the target.
 * Missing parent directories are created. The caller passes the real path (symlinks resolved) so a link survives.
 *
 * The write lands where it was checked: just before the rename the parent directory's real path is resolved again,
 * and when it is no longer `path.dirname(file)` (a directory swapped for a symlink since the caller resolved it) the
 * temp file is removed and the write refused with `WriteMovedError`. Node has no `openat`/`renameat`, so a swap
 * between this check and the rename itself is not caught; see docs/permissions.md.
 */
export async function writeFileAtomic(file: string, data: string | Buffer): Promise<{ created: boolean }> {
  const dir = path.dirname(file)
  await mkdir(dir, { recursive: true })
  let mode: number | undefined
  try {
    mode = (await stat(file)).mode & 0o7777
  } catch {
    // No file yet: the new one gets the default mode (0666 less the umask).
    mode = undefined
  }
  const temp = path.join(dir, `.${path.basename(file)}.rein-${randomBytes(4).toString('hex')}.tmp`)
  const handle = await open(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o666)
  try {
    await handle.writeFile(data)
    await handle.sync()
  } catch (error) {
    await handle.close()
    await rm(temp, { force: true })
    throw error
  }
  await handle.close()
  try {
    const now = await realpath(dir).catch(() => undefined)
    if (now !== dir) throw new WriteMovedError(dir, now)
    if (mode !== undefined) await chmod(temp, mode)
    await rename(temp, file)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
  await syncDirectory(dir)
  return { created: mode === undefined }
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

/** Makes the rename durable. Some file systems refuse fsync on a directory; the data is already safe then. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, constants.O_RDONLY)
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch {
    // Directory fsync is unsupported here; the file's own fsync already happened.
  }
}
