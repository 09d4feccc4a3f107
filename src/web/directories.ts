import { statSync } from 'node:fs'
import { isInside, realPathOf, resolveToolPath } from '../tools/paths.js'
import { protectedReason } from '../permissions/protected-paths.js'

/** A refusal the page shows as one sentence; the HTTP status says whose fault it was. */
export class WebError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409,
    message: string,
  ) {
    super(message)
  }
}

/**
 * The directory a page asks to start a session in, checked as a tool's path is: `~` expanded, relative paths taken
 * from the workspace root, symlinks resolved, and the real path must lie inside the root (`rein web --cwd`, default
 * the directory it started in). A protected folder (`.git/`, `.rein/`, …) is refused as a working directory too.
 */
export function sessionDirectory(root: string, given: unknown, reinHome: string): string {
  if (typeof given !== 'string' || !given.trim()) throw new WebError(400, 'Give the directory to start the session in.')
  if (given.includes('\0')) throw new WebError(400, 'That directory name holds a NUL character; give a plain path.')
  const realRoot = realPathOf(root)
  const real = realPathOf(resolveToolPath(root, given.trim()))
  if (!isInside(real, realRoot)) {
    throw new WebError(403, `Refused: ${given.trim()} is outside the workspace ${realRoot}; start rein web in a directory that contains it.`)
  }
  let isDirectory = false
  try {
    isDirectory = statSync(real).isDirectory()
  } catch {
    // A missing path is reported below, as one sentence.
  }
  if (!isDirectory) throw new WebError(400, `${given.trim()} is not a directory inside ${realRoot}; pick an existing folder.`)
  const guarded = protectedReason([real], { reinHome: [realPathOf(reinHome)] })
  if (guarded) throw new WebError(403, `Refused: ${given.trim()} is a protected folder (${guarded}); pick a project folder.`)
  return real
}
