import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { chmod, mkdir, open, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'

/**
 * Replaces or creates `file` so that a reader sees either the old bytes or the new ones, never a mix: the bytes go
 * to a temp file in the same directory, are fsynced, take the old file's mode, and are renamed over the target.
 * Missing parent directories are created. The caller passes the real path (symlinks resolved) so a link survives.
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
    if (mode !== undefined) await chmod(temp, mode)
    await rename(temp, file)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
  await syncDirectory(dir)
  return { created: mode === undefined }
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
