import { homedir } from 'node:os'
import type { Extension, PreToolDecision, ToolCallInfo } from '../agent/extensions.js'
import type { AgentApi, PermissionMode } from '../agent/types.js'
import type { Settings } from '../config/settings.js'
import { callFacts, insideWorkspace, touchedPath, workspaceRoots } from './call-facts.js'
import { denyRuleMessage, describeCall, planModeMessage, suggestedRule } from './messages.js'
import { allowingRules, deniedPathInCommand, ruleMatches, type MatchContext } from './rule-match.js'
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
  /**
   * Whether the user trusts this workspace (`src/trust/`). Added by the trust-config branch so open.ts can pass it;
   * the trust-tools branch gives it meaning (package-manager runners allowed by a rule only in a trusted workspace).
   */
  workspaceTrusted?: boolean
}

/** The policy as an extension, plus what a front end needs for "allow always". */
export interface PermissionPolicy extends Extension<AgentApi> {
  /** A narrow rule that would allow calls like this one, or undefined when none fits. */
  suggestedRule(call: ToolCallInfo): string | undefined
  /** Adds a rule to the session's allow list (the caller persists it to settings if the user asked for that). */
  allowForSession(rule: string): void
  /** The decision for one call, without the extension wrapper (the same as `preTool`). */
  decide(call: ToolCallInfo): PreToolDecision
}

/**
 * The permission policy as a `preTool` listener. Order of judgement, first match wins:
 * 1. a deny rule covers the call → deny (in every mode, bypass included: a deny rule is the user's hard limit);
 * 2. mode bypass → allow;
 * 3. plan mode: tools that read or fetch are judged as usual; write and edit are denied; commands and unknown (MCP)
 *    tools are denied unless an allow rule covers them (for a command: every part), since the user vouched for those;
 * 4. an ask rule covers the call → ask;
 * 5. write/edit outside the workspace (real path, symlinks resolved) → allow only by an allow rule naming the real
 *    path, else ask, whatever the mode;
 * 6. an allow rule covers the call (for a compound command: every part) → allow;
 * 7. the mode's default: reads allow; edits allow in accept-edits, ask otherwise; everything else asks.
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
  const match: MatchContext = { cwd, home: options.home ?? homedir() }

  const decide = (call: ToolCallInfo): PreToolDecision => {
    const facts = callFacts(call, cwd, match.home)
    const mode = options.getMode()
    const allowRules = [...allow, ...parse(sessionAllow)]
    const denied = deny.find((r) => ruleMatches(r, facts, match))
    if (denied) return { action: 'deny', reason: denyRuleMessage(call, denied.text) }
    const named = facts.command && deniedPathInCommand(deny, facts.command, match, (word) => touchedPath(cwd, word, match.home))
    if (named) return { action: 'deny', reason: denyRuleMessage(call, `${named.rule.text} (the command names ${named.word})`) }
    if (mode === 'bypass') return { action: 'allow', reason: 'bypass mode' }

    const asked = ask.find((r) => ruleMatches(r, facts, match))
    const allowedBy = (extra?: Partial<MatchContext>) => {
      const rules = allowingRules(allowRules, facts, { ...match, ...extra })
      return rules ? { text: rules.map((r) => r.text).join(', ') } : undefined
    }
    const question = (why: string): PreToolDecision => ({ action: 'ask', reason: `${describeCall(call, cwd)}${why}` })

    if (facts.category === 'read') return asked ? question(` (the rule ${asked.text} asks)`) : { action: 'allow' }
    if (facts.category === 'free') return { action: 'allow' }
    if (mode === 'plan' && facts.category !== 'fetch') {
      const vouched = facts.category !== 'edit' && !asked && allowedBy()
      return vouched ? { action: 'allow', reason: `rule ${vouched.text}` } : { action: 'deny', reason: planModeMessage(call) }
    }
    if (asked) return question(` (the rule ${asked.text} asks)`)
    if (facts.category === 'edit' && facts.path && !insideWorkspace(facts.path, roots)) {
      const rule = allowedBy({ realOnly: true })
      return rule ? { action: 'allow', reason: `rule ${rule.text}` } : question(' (outside the workspace)')
    }
    const rule = allowedBy()
    if (rule) return { action: 'allow', reason: `rule ${rule.text}` }
    if (facts.category === 'edit' && mode === 'accept-edits') return { action: 'allow', reason: 'accept-edits mode' }
    return question('')
  }

  return {
    name: 'permissions',
    preTool: (call) => decide(call),
    decide,
    suggestedRule: (call) => suggestedRule(call, cwd),
    allowForSession: (rule) => {
      parse([rule])
      if (!sessionAllow.includes(rule)) sessionAllow.push(rule)
    },
  }
}

/** Settings were validated when loaded; a bad rule here comes from `--allow` or a front end, and is reported. */
function parse(texts: readonly string[] | undefined): Rule[] {
  return (texts ?? []).map((text) => {
    const rule = parseRule(text)
    if ('error' in rule) throw new Error(`Invalid permission rule: ${rule.error}.`)
    return rule
  })
}
