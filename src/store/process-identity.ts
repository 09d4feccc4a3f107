import { readFileSync } from 'node:fs'

/** True when a process with this pid exists on this host (EPERM: it exists but belongs to another user). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

let bootId: string | undefined | null = null

/**
 * When the process with this pid started, as `<boot id>:<clock ticks since boot>` from Linux's /proc; undefined where
 * there is no /proc or the process is gone. Two values differ when the pid was reused by another process, across a
 * reboot too.
 */
export function processStart(pid: number): string | undefined {
  if (bootId === null) bootId = readQuietly('/proc/sys/kernel/random/boot_id')?.trim()
  if (bootId === undefined) return undefined
  const stat = readQuietly(`/proc/${pid}/stat`)
  if (stat === undefined) return undefined
  // The command name (field 2) is in parentheses and may hold spaces; the start time is field 22.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticks = fields[22 - 3]
  return ticks && /^\d+$/.test(ticks) ? `${bootId}:${ticks}` : undefined
}

function readQuietly(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    // No /proc here, or the process ended: the caller falls back to the pid alone.
    return undefined
  }
}
