import path from 'node:path'
import { isInside } from '../tools/paths.js'

/**
 * Names that configure what runs or what is allowed: a file or directory with one of these names, at any depth,
 * is protected. Writing one is how a model turns an edit into code execution (`.git/hooks/*`, `core.fsmonitor` in
 * `.git/config`) or into more permissions (`.rein/settings.local.json`), so such writes always ask (bypass excepted).
 */
export const PROTECTED_NAMES: readonly string[] = ['.git', '.rein', '.claude', '.codex', '.mcp.json', '.vscode', '.idea']

/** Where protected paths are judged from: the user's own settings and credentials live in `reinHome`. */
export interface ProtectedContext {
  /** `$REIN_HOME` as configured and with symlinks resolved. */
  reinHome: readonly string[]
}

/**
 * Why writing `absolute` must ask, or undefined when it is an ordinary path: a component named in `PROTECTED_NAMES`
 * (`src/.git/config` too: a nested repository runs hooks as well), or anything under Rein's own home. Pass both the
 * path as named and its real path; either being protected is enough.
 */
export function protectedReason(paths: readonly string[], ctx: ProtectedContext): string | undefined {
  for (const p of paths) {
    if (ctx.reinHome.some((home) => isInside(p, home))) {
      return `it is in Rein's own home (${ctx.reinHome[0]}), which holds the user's settings and credentials`
    }
    const name = p.split(path.sep).find((part) => PROTECTED_NAMES.includes(part))
    if (name) return `${name} is a protected path: what it holds configures what runs or what is allowed`
  }
  return undefined
}
