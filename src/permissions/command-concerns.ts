import path from 'node:path'
import { expandHome, isInside } from '../tools/paths.js'
import type { TouchedPath } from './call-facts.js'
import { protectedReason, type ProtectedContext } from './protected-paths.js'
import { literalBase } from './read-guard.js'
import type { MatchContext } from './rule-match.js'
import type { Rule } from './rules.js'
import { UNICODE_SPACE, type SplitCommand } from './shell-split.js'

export interface ConcernContext extends MatchContext, ProtectedContext {
  /** Directories a deny rule (or Rein's home) protects: a glob or recursion that could reach into one cannot be judged. */
  deniedBases: readonly string[]
  touched: (word: string) => TouchedPath
}

/** The directories the path deny rules (`Read`, `Edit`, `Write`) cannot reach outside of. */
export function deniedBases(deny: readonly Rule[], ctx: MatchContext, reinHome: readonly string[]): string[] {
  const bases = deny
    .filter((r) => r.pattern !== undefined && ['Read', 'Edit', 'Write'].includes(r.tool))
    .map((r) => literalBase(r.pattern as string, ctx))
    .filter((b): b is string => b !== undefined)
  return [...new Set([...bases, ...reinHome])]
}

const PROC_SECRET = /^\/proc\/.*\/(environ|mem)$/

/**
 * Why a shell command cannot be judged from its text, or undefined. Rules judge the paths a command names; these
 * make bash reach paths the text does not show (a variable, `~`, a glob, a recursion, a redirected input) or read a
 * process's environment or memory, or write a protected path. Such a command is never allowed by an allow rule alone.
 */
export function commandConcern(command: SplitCommand & { raw?: string }, ctx: ConcernContext): string | undefined {
  const space = command.raw?.match(UNICODE_SPACE)?.[0]
  if (space) {
    const code = `U+${space.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
    return `it holds the Unicode space ${code}, which bash does not split words at, so the rules cannot see the command bash would run`
  }
  const args = command.parts.flatMap((p) => p.words.slice(1))
  const targets = command.redirects.map((r) => r.target)
  for (const word of [...args, ...targets]) {
    if (PROC_SECRET.test(word) || /^\/proc\/.*\/(environ|mem)\b/.test(word)) {
      return `it reads ${word}, a process's environment or memory, where keys live`
    }
  }
  const expanded = command.expansions[0]
  if (expanded !== undefined) return `${expanded} expands a variable, so the path it names cannot be checked against the rules`
  for (const word of [...args, ...targets]) {
    if (word === '~' || word.startsWith('~')) return `${word} starts with ~, which bash expands to a home directory`
  }
  const input = command.redirects.find((r) => r.op === '<' && r.target !== '/dev/null')
  if (input) return `it reads its input from ${input.target} (< file), which the rules do not see as a path`
  for (const glob of command.globs) {
    const base = globBase(glob, ctx)
    const reached = ctx.deniedBases.find((d) => isInside(d, base) || isInside(base, d))
    if (reached) return `the glob ${glob} could reach ${reached}, which a deny rule protects`
  }
  for (const part of command.parts) {
    const words = part.words.slice(1)
    if (!words.some((w) => w === '--recursive' || w === '--dereference-recursive' || /^-[A-Za-z]*[rR]/.test(w))) continue
    const dirs = words.filter((w) => !w.startsWith('-'))
    // With one word left (`grep -r PATTERN`), the search runs in the working directory.
    const searched = [...dirs.map((w) => ctx.touched(w)), ...(dirs.length <= 1 ? [{ lexical: ctx.cwd, real: ctx.cwd }] : [])]
    for (const dir of searched) {
      const reached = ctx.deniedBases.find((d) => isInside(d, dir.lexical) || isInside(d, dir.real))
      if (reached) return `it searches ${dir.lexical} recursively, and ${reached} inside it is protected by a deny rule`
    }
  }
  for (const word of [...args, ...targets]) {
    if (word.startsWith('-') && !word.includes('=')) continue
    const value = word.startsWith('-') ? word.slice(word.indexOf('=') + 1) : word
    if (!value) continue
    const touched = ctx.touched(value)
    const why = protectedReason([touched.lexical, touched.real], ctx)
    if (why) return `it names ${value}: ${why}`
  }
  return undefined
}

/** The directory a glob word cannot reach outside of. */
function globBase(glob: string, ctx: MatchContext): string {
  const expanded = expandHome(glob, ctx.home)
  const absolute = path.isAbsolute(expanded) ? expanded : path.join(ctx.cwd, expanded)
  const parts = absolute.split('/')
  const first = parts.findIndex((p) => /[*?[]/.test(p))
  return (first < 0 ? parts : parts.slice(0, first)).join('/') || '/'
}
