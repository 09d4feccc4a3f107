import { isAbsolute, relative, resolve, sep } from 'node:path'

/**
 * Rein's and Claude Code's own settings and trust files, which no snapshot holds and no restore writes or removes
 * (docs/checkpoints.md, "What a snapshot holds"): "Allow always" writes `.rein/settings.local.json` while a session
 * runs, so a rewind that put it back (or removed it) would undo the user's answer, not the agent's work. In
 * gitignore syntax, for the shadow repository's `info/exclude`; `isProtectedPath` says the same for one path.
 *
 * - `.rein/settings.json`, `.rein/settings.local.json`: Rein's workspace settings (permissions, hooks, MCP servers).
 * - `.claude/settings.json`, `.claude/settings.local.json` (any `settings*.json` there): Claude Code's, which Rein
 *   reads for hooks and permissions too.
 * - `.claude.json` and `.claude/.credentials.json`: Claude Code's trust record and credentials, in a workspace that
 *   is a home directory.
 * - Rein's own home (`$REIN_HOME`: sessions, the trust record `trusted-workspaces.json`, the shadow repositories)
 *   when it lies inside the workspace (`protectedPatterns(home, cwd)`).
 */
export const PROTECTED_PATTERNS: readonly string[] = [
  '**/.rein/settings.json',
  '**/.rein/settings.local.json',
  '**/.claude/settings*.json',
  '**/.claude.json',
  '**/.claude/.credentials.json',
]

/** The patterns for one workspace: the fixed ones, plus `$REIN_HOME` when it lies inside the workspace. */
export function protectedPatterns(home: string, cwd: string): string[] {
  const inside = homeInside(home, cwd)
  return inside === undefined ? [...PROTECTED_PATTERNS] : [...PROTECTED_PATTERNS, `/${escapeGlob(inside)}/`]
}

/** `$REIN_HOME` relative to the workspace, with `/` separators, when it lies inside it (and is not the workspace). */
export function homeInside(home: string, cwd: string): string | undefined {
  const rel = relative(resolve(cwd), resolve(home))
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return undefined
  return rel.split(sep).join('/')
}

/** Whether a workspace-relative path (`/` separators) is one no snapshot or restore may touch. */
export function isProtectedPath(path: string, home?: string): boolean {
  if (home !== undefined && (path === home || path.startsWith(`${home}/`))) return true
  const parts = path.split('/')
  const name = parts.at(-1) ?? ''
  const parent = parts.at(-2)
  if (name === '.claude.json') return true
  if (parent === '.rein') return name === 'settings.json' || name === 'settings.local.json'
  if (parent === '.claude') return (name.startsWith('settings') && name.endsWith('.json')) || name === '.credentials.json'
  return false
}

function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`)
}
