import { closeSync, constants, fsyncSync, openSync } from 'node:fs'
import { open } from 'node:fs/promises'

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

/** `syncDirectory` without blocking the event loop, for asynchronous writers (the file tools). */
export async function syncDirectoryAsync(dir: string): Promise<void> {
  try {
    const handle = await open(dir, constants.O_RDONLY)
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch {
    // Directory fsync is unsupported here (see syncDirectory); the file itself was already synced by the caller.
  }
}
