import { homedir } from 'node:os'
import path from 'node:path'
import type { Extension, PreToolDecision, ToolCallInfo } from '../agent/extensions.js'
import type { PermissionMode } from '../agent/types.js'
import type { Settings } from '../config/settings.js'
import { attachSandbox } from '../sandbox/attach.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { reinHome } from '../store/home.js'
import { displayPath, realPathOf } from '../tools/paths.js'
import { installReadGuard } from '../tools/read-guard.js'
import type { ToolState } from '../tools/tool.js'
import { callFacts, insideWorkspace, touchedPath, workspaceRoots } from './call-facts.js'
import { commandConcern, deniedBases } from './command-concerns.js'
import { denyRuleMessage, describeCall, guardedReadMessage, planModeMessage, suggestedRule } from './messages.js'
import { protectedReason } from './protected-paths.js'
import { createReadGuard } from './read-guard.js'
import { allowingRules, deniedPathInCommand, heldBackReason, ruleMatches, type MatchContext } from './rule-match.js'
import { parseRule, type Rule } from './rules.js'

export { permissionNeededMessage, suggestedRule } from './messages.js'

export interface PermissionPolicyOptions {
  cwd: string
  settings: Settings
  getMode: () => PermissionMode
  /** Rules from the command line (`--allow`). */
  extraAllow?: string[]
  /** Rules granted during this session ("allow always" in a front end). The policy reads the array on every call. */
  sessionAllow?: string[]
  /** The home directory `~` stands for in rules; defaults to the user's. */
  home?: string
  /** `$REIN_HOME` (sessions, credentials, trust): refused to every tool unless an allow rule names it. Defaults to the environment's. */
  reinHome?: string
  /**
   * Whether the user trusts this workspace. Only then do allow rules cover commands that run what the repository
   * defines (`npm test`, `make`, `cargo run`); default false.
   */
  workspaceTrusted?: boolean
  /** Allow rules in force for a while (a skill's or custom command's `allowed-tools`); read on every call. */
  grantedAllow?: () => readonly string[]
  /**
   * The session's sandbox (docs/sandbox.md): attached to every tool state this policy guards, and a command it
   * confines needs no prompt outside plan mode (deny and ask rules still apply).
   */
  sandbox?: Sandbox
}

/** The policy as an extension, plus what a front end needs for "allow always". */
export interface PermissionPolicy extends Extension {
  /** A narrow rule that would allow calls like this one, or undefined when none fits. */
  suggestedRule(call: ToolCallInfo): string | undefined
  /** Adds a rule to the session's allow list (the caller persists it to settings if the user asked for that). */
  allowForSession(rule: string): void
  /** The decision for one call, without the extension wrapper (the same as `preTool`). */
  decide(call: ToolCallInfo): PreToolDecision
  /** Makes the tools sharing `state` apply the Read deny rules and Rein's home to every file they open or list. */
  guardTools(state: ToolState): void
}

/**
 * The permission policy as a `preTool` listener. Order of judgement, first match wins:
 * 1. a deny rule covers the call, or the path a read-only tool names is refused by the read guard (a `Read` deny rule,
 *    a hard link to a file one covers, Rein's own home) → deny, in every mode, bypass included;
 * 2. mode bypass → allow;
 * 3. plan mode: tools that read or fetch are judged as usual; write and edit are denied; commands and unknown (MCP)
 *    tools are denied unless one of the user's own allow rules covers them (for a command: every part), since the user
 *    vouched for those; a temporary grant (a skill's or custom command's `allowed-tools`) never does, so only the
 *    plan's approval widens plan mode;
 * 4. an ask rule covers the call → ask;
 * 5. write/edit of a protected path (`.git/`, `.rein/`, … and Rein's home) → ask, whatever the rules and mode;
 * 6. write/edit outside the workspace (real path, symlinks resolved) → allow only by an allow rule naming the real
 *    path, else ask; the same for read-only tools that name a path outside the workspace;
 * 6b. a shell command the session's sandbox confines → allow (the operating system bounds what it can touch); one
 *    that failed inside it → ask, and a yes runs it once outside (`allowUnsandboxed`);
 * 7. a shell command that cannot be judged from its text (`commandConcern`) → ask, unless a bare `Bash` rule allows all;
 * 8. an allow rule covers the call (for a compound command: every part; dangerous flags and script runners need more) → allow;
 * 9. the mode's default: reads allow; edits allow in accept-edits, ask otherwise; everything else asks.
 * Rules are re-read from `sessionAllow` on every call, so "allow always" takes effect at once.
 */
export function createPermissionPolicy(options: PermissionPolicyOptions): PermissionPolicy {
  const { cwd, settings } = options
  const permissions = settings.permissions ?? {}
  const deny = parse(permissions.deny)
  const ask = parse(permissions.ask)
  const allow = parse([...(permissions.allow ?? []), ...(options.extraAllow ?? [])])
  const sessionAllow = options.sessionAllow ?? []
  const roots = workspaceRoots(cwd, permissions.additionalDirectories)
  const match: MatchContext = { cwd, home: options.home ?? homedir(), workspaceTrusted: options.workspaceTrusted === true }
  const reinHomeDir = path.resolve(options.reinHome ?? reinHome())
  const reinHomes = [...new Set([reinHomeDir, realPathOf(reinHomeDir)])]
  // The user's own rules: settings, `--allow`, "allow always". Only these vouch for a command or MCP tool in plan mode.
  const standingAllow = () => [...allow, ...parse(sessionAllow)]
  const currentAllow = () => [...standingAllow(), ...parse(options.grantedAllow?.() ?? [])]
  const guard = createReadGuard({ deny, allow: currentAllow, match, reinHome: reinHomeDir })
  const bases = deniedBases(deny, match, reinHomes)
  const touched = (word: string) => touchedPath(cwd, word, match.home)

  const decide = (call: ToolCallInfo): PreToolDecision => {
    const facts = callFacts(call, cwd, match.home)
    const mode = options.getMode()
    const allowRules = currentAllow()
    const denied = deny.find((r) => ruleMatches(r, facts, match))
    if (denied) return { action: 'deny', reason: denyRuleMessage(call, denied.text) }
    if (facts.category === 'read' && facts.path) {
      const why = guard.refuses(facts.path.lexical)
      if (why) return { action: 'deny', reason: guardedReadMessage(call, displayPath(cwd, facts.path.lexical), why) }
    }
    if (facts.command) {
      const named = deniedPathInCommand(deny, facts.command, match, touched)
      if (named) return { action: 'deny', reason: denyRuleMessage(call, `${named.rule.text} (the command names ${named.word})`) }
      const guarded = guardedWord(facts.command, (word) => guard.refuses(touched(word).lexical))
      if (guarded) return { action: 'deny', reason: guardedReadMessage(call, guarded.word, guarded.why) }
    }
    if (mode === 'bypass') return { action: 'allow', reason: 'bypass mode' }

    const asked = ask.find((r) => ruleMatches(r, facts, match))
    const concern = facts.command && commandConcern(facts.command, { ...match, reinHome: reinHomes, deniedBases: bases, touched })
    const bareBash = allowRules.some((r) => r.tool === 'Bash' && r.pattern === undefined)
    const allowedBy = (extra?: Partial<MatchContext>, rulesToUse: Rule[] = allowRules) => {
      if (concern && !bareBash) return undefined
      const rules = allowingRules(rulesToUse, facts, { ...match, ...extra })
      return rules ? { text: rules.map((r) => r.text).join(', ') } : undefined
    }
    const question = (why: string): PreToolDecision => ({ action: 'ask', reason: `${describeCall(call, cwd)}${why}` })
    const outside = facts.path !== undefined && !insideWorkspace(facts.path, roots)

    if (facts.category === 'read') {
      if (asked) return question(` (the rule ${asked.text} asks)`)
      if (!outside) return { action: 'allow' }
      const rule = allowedBy({ realOnly: true })
      return rule ? { action: 'allow', reason: `rule ${rule.text}` } : question(' (outside the workspace)')
    }
    if (facts.category === 'free') return { action: 'allow' }
    if (mode === 'plan' && facts.category !== 'fetch') {
      // Plan mode is absolute: a temporary grant (a skill's or command's allowed-tools) never vouches here.
      const vouched = facts.category !== 'edit' && !asked && allowedBy(undefined, standingAllow())
      return vouched ? { action: 'allow', reason: `rule ${vouched.text}` } : { action: 'deny', reason: planModeMessage(call) }
    }
    if (asked) return question(` (the rule ${asked.text} asks)`)
    if (facts.category === 'edit' && facts.path) {
      const guarded = protectedReason([facts.path.lexical, facts.path.real], { reinHome: reinHomes })
      if (guarded) return question(` (${guarded}; this always asks, except in bypass mode)`)
      if (outside) {
        const rule = allowedBy({ realOnly: true })
        return rule ? { action: 'allow', reason: `rule ${rule.text}` } : question(' (outside the workspace)')
      }
    }
    if (facts.command && call.name === 'bash' && options.sandbox) {
      const { sandbox } = options
      if (sandbox.offersRunOutside(facts.command.raw)) return question(' (it failed inside the sandbox; allowing runs it once outside, unconfined; this always asks)')
      if (sandbox.confines(facts.command.raw)) return { action: 'allow', reason: 'sandboxed' }
    }
    if (concern && !bareBash) return question(` (${concern}; allow rules do not cover such commands)`)
    const rule = allowedBy()
    if (rule) return { action: 'allow', reason: `rule ${rule.text}` }
    if (facts.category === 'edit' && mode === 'accept-edits') return { action: 'allow', reason: 'accept-edits mode' }
    const heldBack = facts.command && heldBackReason(allowRules, facts.command, match)
    return question(heldBack ? ` (${heldBack})` : '')
  }

  /** A question that no rule can answer (a protected path, a command that cannot be judged) offers none. */
  const ruleFor = (call: ToolCallInfo, decision: PreToolDecision): string | undefined => {
    const unanswerable = /always asks|do not cover|is not trusted/.test(decision.reason ?? '')
    return decision.action === 'ask' && unanswerable ? undefined : suggestedRule(call, cwd)
  }
  const allowForSession = (rule: string): void => {
    parse([rule])
    if (!sessionAllow.includes(rule)) sessionAllow.push(rule)
  }

  return {
    name: 'permissions',
    preTool: (call) => {
      const decision = decide(call)
      if (decision.action !== 'ask') return decision
      const rule = ruleFor(call, decision)
      return rule ? { ...decision, suggestedRule: rule } : decision
    },
    // "Allow always" covers later calls of this session at once; a front end persists the rule if the user asked.
    permissionAnswered: (request, answer) => {
      const rule = answer.outcome === 'allow-always' ? (answer.rule ?? request.suggestedRule) : undefined
      if (rule) allowForSession(rule)
      const command = request.call.name === 'bash' ? callFacts(request.call, cwd, match.home).command?.raw : undefined
      if (command && answer.outcome !== 'deny' && answer.outcome !== 'unanswered') options.sandbox?.releaseOnce(command)
    },
    decide,
    suggestedRule: (call) => ruleFor(call, decide(call)),
    allowForSession,
    guardTools: (state) => {
      installReadGuard(state, guard)
      if (options.sandbox) attachSandbox(state.extra, options.sandbox)
    },
  }
}

/** The first word (argument or redirection target) of a command whose path the read guard refuses. */
function guardedWord(
  command: { parts: { words: string[] }[]; redirects: { target: string }[] },
  refuses: (word: string) => string | undefined,
): { word: string; why: string } | undefined {
  const words = [...command.parts.flatMap((p) => p.words.slice(1)), ...command.redirects.map((r) => r.target)]
  for (const raw of words) {
    const word = raw.startsWith('-') ? (raw.includes('=') ? raw.slice(raw.indexOf('=') + 1) : '') : raw
    // `$…` and /proc paths are for commandConcern: they ask rather than deny.
    if (!word || word.includes('$') || word.startsWith('/proc/')) continue
    const why = refuses(word)
    if (why) return { word, why }
  }
  return undefined
}

/** Settings were validated when loaded; a bad rule here comes from `--allow` or a front end, and is reported. */
function parse(texts: readonly string[] | undefined): Rule[] {
  return (texts ?? []).map((text) => {
    const rule = parseRule(text)
    if ('error' in rule) throw new Error(`Invalid permission rule: ${rule.error}.`)
    return rule
  })
}
