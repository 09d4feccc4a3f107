import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import { syncDirectory } from '../fs/sync-directory.js'

/**
 * Writes `text` to `path` so that a crash leaves either the old file or the new one, never a torn one: a temporary
 * file beside it is written and fsynced, renamed over it, and the directory is fsynced. The file is owner-only (0600)
 * and its directory owner-only (0700) whatever the umask: trust records and credentials are nobody else's business.
 */
export function writePrivateFile(path: string, text: string): void {
  const dir = dirname(path)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  const temporary = `${path}.${process.pid}.tmp`
  const fd = openSync(temporary, 'w', 0o600)
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } catch (error) {
    closeSync(fd)
    rmSync(temporary, { force: true })
    throw error
  }
  closeSync(fd)
  chmodSync(temporary, 0o600)
  renameSync(temporary, path)
  syncDirectory(dir)
}

