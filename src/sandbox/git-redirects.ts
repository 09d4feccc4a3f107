import { existsSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Files that, appearing in a repository's own `.git`, make git read its hooks and config from elsewhere: `commondir`
 * turns the directory into a linked one whose common directory (hooks, config) is wherever the file says. Inside the
 * writable `.git` a command can create one, and bind mounts can only cover what exists, so the sandbox removes any
 * that appeared (before each command, after each command, at close) and says so.
 */
const REDIRECTS = ['commondir']

export interface GitRedirectGuard {
  /** Removes redirect files that were not there when the sandbox opened; returns the ones removed. */
  sweep(): string[]
}

export function guardGitRedirects(workspace: string): GitRedirectGuard {
  const gitDir = join(workspace, '.git')
  let isDir = false
  try {
    isDir = statSync(gitDir).isDirectory()
  } catch {
    // No .git: nothing to guard.
  }
  const watched = isDir ? REDIRECTS.map((name) => join(gitDir, name)).filter((path) => !existsSync(path)) : []
  return {
    sweep() {
      const removed: string[] = []
      for (const path of watched) {
        if (!existsSync(path)) continue
        try {
          unlinkSync(path)
          removed.push(path)
        } catch {
          // Already gone, or not ours to remove: git will report a broken repository rather than run foreign hooks.
        }
      }
      return removed
    },
  }
}
