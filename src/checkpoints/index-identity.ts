import { statSync } from 'node:fs'

/**
 * An index file's identity: inode, size, modification and change times. Git never writes an index in place (it
 * renames a new file over it), so any write by any process changes it; while it is unchanged, what a process
 * remembers of that index still holds. '' when there is no such file.
 */
export function identityOf(index: string): string {
  try {
    const stat = statSync(index, { bigint: true })
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`
  } catch {
    // No index yet (a new repository): nothing to reuse.
    return ''
  }
}
