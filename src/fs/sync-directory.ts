import { closeSync, fsyncSync, openSync } from 'node:fs'

/**
 * Makes a new or renamed directory entry durable (fsync of the directory). Some platforms and file systems refuse to
 * sync a directory; there the rename or create is still atomic and only crash safety is weaker, so that is not an error.
 */
export function syncDirectory(dir: string): void {
  let fd: number | undefined
  try {
    fd = openSync(dir, 'r')
    fsyncSync(fd)
  } catch {
    // Directory fsync is unsupported here (see above); the file itself was already synced by the caller.
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
