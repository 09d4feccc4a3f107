import type { ToolCallInfo } from '../agent/extensions.js'
import { displayPath, resolveToolPath } from '../tools/paths.js'
import { callFacts } from './call-facts.js'
import { scriptRunner } from './dangerous-flags.js'

/** What the user is asked about, in a few words: `Run: npm test`, `Edit src/a.ts`. */
export function describeCall(call: ToolCallInfo, cwd: string): string {
  const facts = callFacts(call, cwd)
  if (facts.command) return `Run: ${facts.command.raw}`
  if (facts.url) return `Fetch ${facts.url.href}`
  if (facts.path && facts.category === 'edit' && facts.targetKind === 'file') {
    return `${facts.ruleName} ${displayPath(cwd, facts.path.lexical)}`
  }
  return `Use ${call.name}`
}

/**
 * A rule that would allow calls like this one, offered for "allow always": the exact command for a simple shell
 * command, the file for an edit, the domain for a fetch, the tool for an MCP tool. Undefined when no narrow rule
 * fits (a compound or opaque command), so "allow always" cannot grant more than the user saw.
 */
export function suggestedRule(call: ToolCallInfo, cwd?: string): string | undefined {
  const facts = callFacts(call, cwd ?? process.cwd())
  const input = (call.input ?? {}) as Record<string, unknown>
  if (facts.command) {
    const { parts, opaque } = facts.command
    return !opaque && parts.length === 1 ? `${facts.ruleName}(${parts[0].text})` : undefined
  }
  const file = facts.targetKind === 'file' && call.tool?.target ? input[call.tool.target.argument] : undefined
  if (facts.category === 'edit' && typeof file === 'string') {
    const shown = cwd ? displayPath(cwd, resolveToolPath(cwd, file)) : file
    return `Edit(${shown})`
  }
  if (facts.category === 'read' && facts.path) {
    return `Read(${cwd ? displayPath(cwd, facts.path.lexical) : facts.path.lexical})`
  }
  if (facts.targetKind === 'url') return facts.url ? `${facts.ruleName}(domain:${facts.url.hostname})` : undefined
  // A tool without a target (MCP tools) is allowed by its name; Rein models none of its arguments.
  return facts.targetKind === undefined ? facts.ruleName : undefined
}

/**
 * The result the model reads when a call needed the user's approval and no front end was attached to ask (one-shot
 * mode, CI): what was refused, that retrying will not help, and how the user grants it next time.
 */
export function permissionNeededMessage(call: ToolCallInfo, reason?: string): string {
  const facts = callFacts(call, process.cwd())
  const rule = suggestedRule(call)
  const input = (call.input ?? {}) as Record<string, unknown>
  const file = facts.targetKind === 'file' && call.tool?.target ? input[call.tool.target.argument] : undefined
  const what = facts.command
    ? `running \`${facts.command.raw}\``
    : facts.url
      ? `fetching ${facts.url.href}`
      : facts.category === 'edit' && typeof file === 'string'
        ? `changing ${file}`
        : facts.category === 'read' && facts.path
          ? `${call.name} of ${facts.path.lexical}`
          : `calling ${call.name}`
  // The policy's question names why it asks; a question no rule can answer (a command that cannot be judged, a
  // protected path) offers no rule.
  const described = describeCall(call, process.cwd())
  const why =
    reason?.startsWith(`${described} (`) && reason.endsWith(')')
      ? reason.slice(described.length + 2, -1)
      : reason
        ? / \((.*)\)$/s.exec(reason)?.[1]
        : undefined
  const ruleless = why !== undefined && /always asks|do not cover|is not trusted/.test(why)
  const runner = facts.command?.parts.some((p) => scriptRunner(p) !== undefined)
  const grants = [
    rule && !ruleless ? `re-run Rein with --allow '${rule}'${runner ? ' in a trusted workspace (rein trust)' : ''}` : undefined,
    facts.category === 'edit' && !ruleless ? 'use --permission-mode accept-edits (edits inside the working directory)' : undefined,
    'use --permission-mode bypass (everything, writes to protected paths such as .git/ and .rein/ included)',
  ].filter(Boolean)
  return `Permission needed: ${what} requires the user's approval${why ? ` (${why})` : ''}, and no one is attached to give it, so it was not done. \
Do not retry it; continue without it or tell the user. The user can allow it if they ${grants.join(', or ')}.`
}

/** Why a call was refused in plan mode; the model is told it is planning and what to do instead. */
export function planModeMessage(call: ToolCallInfo): string {
  return `Denied: ${call.name} can change things, and Rein is in plan mode, which is read-only. You are planning: \
explore with read-only tools, then present your plan and wait for the user to switch modes before changing anything.`
}

export function denyRuleMessage(call: ToolCallInfo, rule: string): string {
  return `Denied: ${call.name} is blocked by the permission rule ${rule} in the user's settings. Do not retry it or work \
around it; choose another approach or ask the user.`
}

/** Why a read-only tool, or a command, may not open a path: a Read deny rule, a hard link to a denied file, Rein's home. */
export function guardedReadMessage(call: ToolCallInfo, shown: string, why: string): string {
  return `Denied: ${shown} may not be read (${call.name}): ${why}. Do not retry it or work around it; choose another \
approach or ask the user.`
}
