import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { expandHome, isInside, realPathOf } from '../tools/paths.js'
import type { ReadGuard } from '../tools/read-guard.js'
import { pathMatches, type MatchContext } from './rule-match.js'
import type { Rule } from './rules.js'


/**
 * Files under one deny rule's tree that are remembered by (device, inode) when the rules load, so that a hard link to
 * one of them elsewhere is refused too. Deny rules name small trees (`~/.ssh`); a tree larger than this is walked
 * only this far, in breadth-first order, and the rest is judged by path alone.
 */
export const INODE_WALK_LIMIT = 4096

export interface ReadGuardOptions {
  deny: readonly Rule[]
  /** The allow rules in force now (settings, `--allow`, session grants): only these can open Rein's home. */
  allow: () => readonly Rule[]
  match: MatchContext
  /** `$REIN_HOME`: sessions, credentials and trust files, refused to every tool unless an allow rule names it. */
  reinHome: string
}

export function createReadGuard(options: ReadGuardOptions): ReadGuard {
  const { match } = options
  const deny = options.deny.filter((r) => r.tool === 'Read' && r.pattern !== undefined)
  const reinHomes = [...new Set([path.resolve(options.reinHome), realPathOf(path.resolve(options.reinHome))])]
  // (device, inode) → what covers that file, for hard links: the files of each Read deny rule's tree, and the files at
  // the top of Rein's home (credentials, settings, trust; session logs below are judged by path).
  const inodes = new Map<string, string>()
  for (const rule of deny) collectInodes(rule, match, inodes)
  collectTopFiles(reinHomes[0], `Rein's own home (${reinHomes[0]})`, inodes)

  const namesReinHome = (rule: Rule, touched: { lexical: string; real: string }): boolean => {
    if (rule.tool !== 'Read' || rule.pattern === undefined) return false
    const base = literalBase(rule.pattern, match)
    return base !== undefined && reinHomes.some((home) => isInside(base, home)) && pathMatches(rule.pattern, touched, match)
  }

  const namesProc = (rule: Rule, touched: { lexical: string; real: string }): boolean =>
    rule.tool === 'Read' && rule.pattern !== undefined && rule.pattern.startsWith('/proc/') && pathMatches(rule.pattern, touched, match)

  // Where the user keeps prompt files in Rein's home: only these are open to `refusesLoading`, so a link from one of
  // them to the credentials or a session log is still refused.
  const promptPlaces = reinHomes.flatMap((home) => PROMPT_PLACES.map((name) => path.join(home, name)))
  const inHome = (p: string): boolean => reinHomes.some((home) => isInside(p, home))
  const outsidePromptPlaces = (p: string): boolean => inHome(p) && !promptPlaces.some((place) => isInside(p, place))

  const judge = (absolute: string, loading: boolean): string | undefined => {
    const touched = { lexical: absolute, real: realPathOf(absolute) }
    const rule = deny.find((r) => pathMatches(r.pattern as string, touched, match))
    if (rule) return `the permission rule ${rule.text} covers it`
    if ((PROCESS_SECRETS.test(touched.lexical) || PROCESS_SECRETS.test(touched.real)) && !options.allow().some((r) => namesProc(r, touched))) {
      return `it is a process's environment or memory, where keys live`
    }
    const refusedHome = loading
      ? outsidePromptPlaces(touched.lexical) || outsidePromptPlaces(touched.real)
      : inHome(touched.lexical) || inHome(touched.real)
    if (refusedHome && !options.allow().some((r) => namesReinHome(r, touched))) {
      return `it is in Rein's own home (${reinHomes[0]}), which holds sessions and credentials`
    }
    if (inodes.size === 0) return undefined
    try {
      const info = statSync(absolute)
      const linked = info.nlink > 1 ? inodes.get(`${info.dev}:${info.ino}`) : undefined
      if (linked) return `it is a hard link to a file ${linked} covers`
    } catch {
      // Not there (or not ours to stat): nothing to read, so nothing is refused by inode.
    }
    return undefined
  }

  return {
    refuses: (absolute) => judge(absolute, false),
    refusesLoading: (absolute) => judge(absolute, true),
  }
}

/**
 * The directory a path pattern cannot reach outside of: the pattern's components before the first glob character,
 * `~` expanded, relative patterns from the working directory. A pattern without `/` matches a name at any depth, so
 * its base is the working directory.
 */
export function literalBase(pattern: string, ctx: MatchContext): string | undefined {
  const expanded = expandHome(pattern, ctx.home)
  if (!expanded.includes('/')) return ctx.cwd
  const absolute = path.isAbsolute(expanded) ? expanded : path.join(ctx.cwd, expanded)
  const parts = absolute.split('/')
  const firstGlob = parts.findIndex((part) => /[*?[\]{}!]/.test(part))
  const kept = firstGlob < 0 ? parts : parts.slice(0, firstGlob)
  return kept.join('/') || '/'
}

/** Walks the rule's literal base breadth-first (bounded) and records the (device, inode) of each file the rule covers. */
function collectInodes(rule: Rule, match: MatchContext, into: Map<string, string>): void {
  const pattern = rule.pattern as string
  // A name pattern (`*.env`) covers the whole workspace; its files are judged by path only.
  if (!expandHome(pattern, match.home).includes('/')) return
  const base = literalBase(pattern, match)
  if (base === undefined || base === '/') return
  const queue = [base]
  let seen = 0
  while (queue.length && seen < INODE_WALK_LIMIT) {
    const current = queue.shift() as string
    let info
    try {
      info = statSync(current)
    } catch {
      continue // Missing or unreadable: nothing there to link to.
    }
    seen++
    if (info.isDirectory()) {
      try {
        for (const name of readdirSync(current)) queue.push(path.join(current, name))
      } catch {
        // A directory we may not list: its files cannot be linked by us either.
      }
    } else if (info.isFile() && pathMatches(pattern, { lexical: current, real: realPathOf(current) }, match)) {
      into.set(`${info.dev}:${info.ino}`, `the permission rule ${rule.text}`)
    }
  }
}

/** Records the (device, inode) of each file directly in `dir` (not below), as covered by `what`. */
function collectTopFiles(dir: string, what: string, into: Map<string, string>): void {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return // No home yet: nothing in it to link to.
  }
  for (const name of names) {
    try {
      const info = statSync(path.join(dir, name))
      if (info.isFile()) into.set(`${info.dev}:${info.ino}`, what)
    } catch {
      // Vanished or unreadable: nothing to link to.
    }
  }
}

/** The prompt files a user keeps in Rein's home (`$REIN_HOME/AGENTS.md`, its commands, skills and agents). */
export const PROMPT_PLACES = ['AGENTS.md', 'commands', 'skills', 'agents']

/** A process's environment or memory (`/proc/self/environ`, `/proc/123/mem`): Rein's own holds the API key. */
export const PROCESS_SECRETS = /^\/proc\/[^/]+\/(task\/[^/]+\/)?(environ|mem)$/
