import path from 'node:path'
import picomatch from 'picomatch'
import { expandHome } from '../tools/paths.js'
import type { CallFacts, TouchedPath } from './call-facts.js'
import { dangerousUse, ruleNamesFlag, scriptRunner } from './dangerous-flags.js'
import { ruleNameMatches, type Rule } from './rules.js'
import { splitCommand, type CommandPart, type SplitCommand } from './shell-split.js'

export interface MatchContext {
  cwd: string
  home: string
  /** For allow rules on paths outside the workspace only the real path counts, so a symlink cannot borrow a rule. */
  realOnly?: boolean
  /** Whether the user trusts this workspace: only then do allow rules cover commands that run its scripts. */
  workspaceTrusted?: boolean
}

/**
 * Whether `rule` covers the call. For a shell command one covered part is enough: this is the test for deny and ask
 * rules. Allow rules go through `allowingRules`, which needs every part covered.
 */
export function ruleMatches(rule: Rule, facts: CallFacts, ctx: MatchContext): boolean {
  const pathRules = facts.pathRules
  const nameOk = pathRules ? pathRules.includes(rule.tool) : ruleNameMatches(rule, facts.ruleName)
  if (!nameOk) return false
  if (rule.pattern === undefined) return true
  if (pathRules) return facts.path !== undefined && pathMatches(rule.pattern, facts.path, ctx)
  if (facts.targetKind === 'command') {
    const command = facts.command
    if (!command) return false
    return command.parts.some((p) => commandMatches(rule.pattern!, p)) || commandMatches(rule.pattern, asPart(command.raw))
  }
  if (facts.targetKind === 'url') return facts.url !== undefined && urlMatches(rule.pattern, facts.url)
  // Other tools (todo_write, jobs, MCP) take no pattern: a rule with one is about arguments we do not model.
  return false
}

/**
 * The allow rules that together cover the call, or undefined. A shell command is allowed only when every part is
 * covered by some rule and nothing is hidden from view (`opaque`); a bare `Bash` rule covers anything. A part that
 * uses a flag of the dangerous-flags table is covered only by a rule that names the flag, and a script runner
 * (`npm test`, `make`) only in a trusted workspace.
 */
export function allowingRules(rules: readonly Rule[], facts: CallFacts, ctx: MatchContext): Rule[] | undefined {
  if (facts.targetKind !== 'command') {
    const rule = rules.find((r) => ruleMatches(r, facts, ctx))
    return rule ? [rule] : undefined
  }
  const bare = rules.find((r) => r.tool === facts.ruleName && r.pattern === undefined)
  if (bare) return [bare]
  const command = facts.command
  if (!command || command.opaque || command.parts.length === 0) return undefined
  const used: Rule[] = []
  for (const part of command.parts) {
    const rule = rules.find((r) => r.tool === facts.ruleName && r.pattern !== undefined && coversPart(r.pattern, part, ctx))
    if (!rule) return undefined
    if (!used.includes(rule)) used.push(rule)
  }
  return used
}

/** Whether a patterned Bash rule covers one part, dangerous flags and script runners included. */
function coversPart(pattern: string, part: CommandPart, ctx: MatchContext): boolean {
  if (!commandMatches(pattern, part)) return false
  const use = dangerousUse(part)
  if (use && !ruleNamesFlag(normalizedPattern(pattern.replace(/:\*$/, '')), use)) return false
  return ctx.workspaceTrusted === true || scriptRunner(part) === undefined
}

/**
 * Why patterned allow rules that match a part's text still do not cover it (a dangerous flag, a script runner in an
 * untrusted workspace), for the question the user is asked; undefined when no rule was held back.
 */
export function heldBackReason(rules: readonly Rule[], command: SplitCommand, ctx: MatchContext): string | undefined {
  for (const part of command.parts) {
    const matching = rules.filter((r) => r.tool === 'Bash' && r.pattern !== undefined && commandMatches(r.pattern, part))
    if (!matching.length || matching.some((r) => coversPart(r.pattern as string, part, ctx))) continue
    const use = dangerousUse(part)
    if (use) return `${use.why}; allow rules cover it only when they name ${use.flag}`
    const runner = scriptRunner(part)
    if (runner) return `${runner}, and this workspace is not trusted; run \`rein trust\` to let allow rules cover it`
  }
  return undefined
}

const asPart = (raw: string): CommandPart => ({ words: [raw], text: raw.trim().replace(/\s+/g, ' ') })

/** The words of a pattern, normalized the same way as a command's parts, so quoting does not matter. */
function normalizedPattern(pattern: string): string {
  const split = splitCommand(pattern)
  return split.parts.map((p) => p.text).join(' ')
}

/**
 * `Bash(git status:*)` matches `git status` and `git status --short` but not `git statusx`; `Bash(npm test)` matches
 * exactly `npm test`; a `*` elsewhere matches any text (`Bash(npm run *)`).
 */
export function commandMatches(pattern: string, part: CommandPart): boolean {
  if (pattern.endsWith(':*')) {
    const prefix = normalizedPattern(pattern.slice(0, -2))
    return part.text === prefix || part.text.startsWith(`${prefix} `)
  }
  if (pattern.includes('*')) {
    const regex = new RegExp(`^${pattern.trim().split('*').map(escapeRegex).join('.*')}$`, 's')
    return regex.test(part.text)
  }
  return part.text === normalizedPattern(pattern)
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Path patterns are globs (picomatch, dotfiles included): `~/` is the home directory, absolute patterns are
 * absolute, others are relative to the working directory, and a pattern without `/` matches a name at any depth
 * (`*.env`), as in .gitignore. `dir/**` also matches `dir` itself.
 */
export function pathMatches(pattern: string, touched: TouchedPath, ctx: MatchContext): boolean {
  const expanded = expandHome(pattern, ctx.home)
  const absolute = path.isAbsolute(expanded)
    ? expanded
    : expanded.includes('/')
      ? path.join(ctx.cwd, expanded)
      : path.join(ctx.cwd, '**', expanded)
  let matcher = matchers.get(absolute)
  if (!matcher) {
    matcher = picomatch(absolute, { dot: true })
    if (matchers.size >= MATCHER_CACHE) matchers.clear()
    matchers.set(absolute, matcher)
  }
  if (matcher(touched.real)) return true
  return !ctx.realOnly && matcher(touched.lexical)
}

/** Compiled path patterns: the read guard asks about every file a grep walks, so each pattern is compiled once. */
const matchers = new Map<string, (p: string) => boolean>()
const MATCHER_CACHE = 256

/** `domain:example.com` matches that host and `domain:*.example.com` its subdomains; other patterns glob the URL. */
function urlMatches(pattern: string, url: URL): boolean {
  if (pattern.startsWith('domain:')) {
    const domain = pattern.slice('domain:'.length).toLowerCase()
    const host = url.hostname.toLowerCase()
    if (domain.startsWith('*.')) return host.endsWith(domain.slice(1))
    return host === domain
  }
  return picomatch.isMatch(url.href, pattern, { dot: true })
}

/**
 * A deny rule on file paths (`Read(~/.ssh/**)`, `Edit(.env)`) that a shell command's arguments name: each word after
 * the command name (and the value of `--flag=value`) is taken as a path relative to the working directory, symlinks
 * resolved. This is a guard, not a proof: a command can reach a file without naming it (`cat $(ls)`, a script), which
 * is why commands that hide what they run are never allowed by rules.
 */
export function deniedPathInCommand(
  deny: readonly Rule[],
  command: SplitCommand,
  ctx: MatchContext,
  touched: (word: string) => TouchedPath,
): { rule: Rule; word: string } | undefined {
  const pathRules = deny.filter((r) => r.pattern !== undefined && r.pattern !== '*' && PATH_RULE_NAMES.has(r.tool))
  if (!pathRules.length) return undefined
  for (const part of command.parts) {
    for (const raw of part.words.slice(1)) {
      let word = raw
      if (raw.startsWith('-')) {
        // A flag names a path only as `--flag=value`.
        const equals = raw.indexOf('=')
        if (equals < 0) continue
        word = raw.slice(equals + 1)
      }
      if (!word) continue
      const path = touched(word)
      const rule = pathRules.find((r) => pathMatches(r.pattern as string, path, ctx))
      if (rule) return { rule, word }
    }
  }
  return undefined
}

/** Rule names whose patterns are file paths. */
const PATH_RULE_NAMES = new Set(['Read', 'Edit', 'Write'])
