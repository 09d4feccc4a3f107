import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'

/** Expands a leading `~` or `~/` to the user's home directory; any other path is returned unchanged. */
export function expandHome(p: string, home: string = homedir()): string {
  if (p === '~') return home
  if (p.startsWith('~/')) return path.join(home, p.slice(2))
  return p
}

/**
 * The absolute, normalized path a tool argument names: `~` expanded, relative paths taken from `cwd`, `..` folded.
 * Symlinks are not resolved; see `realPathOf` for that.
 */
export function resolveToolPath(cwd: string, p: string, home: string = homedir()): string {
  return path.resolve(cwd, expandHome(p, home))
}

/**
 * The path with every symlink resolved, even when the path itself does not exist yet: the real path of its nearest
 * existing ancestor joined with the missing rest. This is what a write would actually touch.
 */
export function realPathOf(absolute: string): string {
  let existing = absolute
  const rest: string[] = []
  for (;;) {
    try {
      return path.join(realpathSync(existing), ...rest)
    } catch {
      // The path does not exist (or cannot be resolved) at this level: climb one level and keep the name.
      const parent = path.dirname(existing)
      if (parent === existing) return absolute
      rest.unshift(path.basename(existing))
      existing = parent
    }
  }
}

/** True when `inner` is `outer` or lies beneath it. Both must be absolute and normalized. */
export function isInside(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
}

/** How a path is shown to the model: relative to `cwd` when inside it, absolute otherwise. */
export function displayPath(cwd: string, absolute: string): string {
  return isInside(absolute, cwd) ? path.relative(cwd, absolute) || '.' : absolute
}

/**
 * The file a tool call names: `shown` for messages (relative to the working directory when inside it) and `absolute`
 * with symlinks resolved, the path read, written and version-tracked (a symlink is written through).
 */
export function fileTarget(cwd: string, filePath: string): { shown: string; absolute: string } {
  const named = resolveToolPath(cwd, filePath)
  return { shown: displayPath(cwd, named), absolute: realPathOf(named) }
}
