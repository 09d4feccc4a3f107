import { lstatSync, readdirSync, realpathSync } from 'node:fs'
import { isAbsolute, join, resolve, sep } from 'node:path'
import picomatch from 'picomatch'

/** How many directory entries one glob may visit before the walk stops and says so. */
export const GLOB_WALK_LIMIT = 50_000

export interface ResolvedDenials {
  /** Real paths that exist and match a rule, each masked in the sandbox. */
  paths: string[]
  /** One sentence per rule whose walk was cut short, for the notice. */
  notes: string[]
}

/**
 * Turns `Read` deny rules (paths or globs; `~/` is the home, a relative rule is the workspace's) into the real paths
 * that exist now. A bind mount masks a path, not a pattern, so a file created later that matches a glob is not
 * masked inside the sandbox (the read rules of Rein's own tools still cover it); docs/sandbox.md records this.
 */
export function resolveDenials(rules: string[], workspace: string, home: string): ResolvedDenials {
  const paths = new Set<string>()
  const notes: string[] = []
  for (const rule of rules) {
    let absolute = absoluteRule(rule, workspace, home)
    // `dir/**` covers the directory itself: one mask over it, not one per file.
    if (absolute.endsWith('/**') && !/[*?[\]{}]/.test(absolute.slice(0, -3))) absolute = absolute.slice(0, -3)
    if (!/[*?[\]{}]/.test(absolute)) {
      const real = realOrUndefined(absolute)
      if (real) paths.add(real)
      continue
    }
    const root = staticPrefix(absolute)
    const matches = picomatch(absolute, { dot: true })
    let visited = 0
    const walk = (dir: string): void => {
      let entries: string[]
      try {
        entries = readdirSync(dir)
      } catch {
        return // Unreadable or vanished: nothing under it can be read by the command either.
      }
      for (const name of entries) {
        if (++visited > GLOB_WALK_LIMIT) return
        const path = join(dir, name)
        if (matches(path)) {
          const real = realOrUndefined(path)
          if (real) paths.add(real)
        }
        let isDir = false
        try {
          isDir = lstatSync(path).isDirectory()
        } catch {
          continue // Vanished while we looked.
        }
        if (isDir) walk(path)
      }
    }
    walk(root)
    if (visited > GLOB_WALK_LIMIT) notes.push(`the Read deny rule ${rule} matched more than ${GLOB_WALK_LIMIT} entries to search; only the first were masked`)
  }
  return { paths: [...paths].sort(), notes }
}

export function absoluteRule(rule: string, workspace: string, home: string): string {
  if (rule === '~') return home
  if (rule.startsWith('~/')) return join(home, rule.slice(2))
  return isAbsolute(rule) ? rule : resolve(workspace, rule)
}

/** The leading path segments without a glob character: where the walk starts. */
function staticPrefix(pattern: string): string {
  const parts = pattern.split(sep)
  const index = parts.findIndex((part) => /[*?[\]{}]/.test(part))
  return parts.slice(0, index).join(sep) || sep
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined // Does not exist: nothing to mask.
  }
}
