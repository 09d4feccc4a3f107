import type { ToolCallInfo } from '../agent/extensions.js'
import { isInside, realPathOf, resolveToolPath } from '../tools/paths.js'
import { peerName, type CallTarget, type ToolCategory } from '../tools/tool.js'
import { splitCommand, type SplitCommand } from './shell-split.js'

/** A path a call touches: as named (`..` folded, `~` expanded) and with symlinks resolved. */
export interface TouchedPath {
  lexical: string
  real: string
}

/**
 * What the policy needs to know about one call, derived once from its arguments and the facts its tool declares
 * (src/tools/tool.ts). A name no tool has is `other` with no target, so it asks.
 */
export interface CallFacts {
  tool: string
  /** The name rules use: the tool's Claude Code name, else its own (`mcp__server__tool`). */
  ruleName: string
  category: ToolCategory
  /** Which argument names what the call touches, as the tool declares it. */
  targetKind?: CallTarget['kind']
  /**
   * For a tool that touches paths, the rule names that guard them: `Read` rules guard every tool that reads, `Edit`
   * rules every tool that edits, besides the tool's own name (`Read(…)`, `Grep(…)` for grep).
   */
  pathRules?: string[]
  path?: TouchedPath
  command?: SplitCommand & { raw: string }
  url?: URL
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

export function callFacts(call: ToolCallInfo, cwd: string, home?: string): CallFacts {
  const input = (typeof call.input === 'object' && call.input !== null ? call.input : {}) as Record<string, unknown>
  const target = call.tool?.target
  const facts: CallFacts = {
    tool: call.name,
    ruleName: peerName(call.name, call.tool),
    category: call.tool?.category ?? 'other',
  }
  if (!target) return facts
  facts.targetKind = target.kind
  const value = str(input[target.argument])
  switch (target.kind) {
    case 'file':
    case 'path': {
      facts.pathRules = [...new Set([facts.category === 'edit' ? 'Edit' : 'Read', facts.ruleName])]
      const named = value ?? (target.kind === 'path' ? '.' : undefined)
      if (named !== undefined) facts.path = touchedPath(cwd, named, home)
      break
    }
    case 'command':
      if (value !== undefined) facts.command = { ...splitCommand(value), raw: value }
      break
    case 'url':
      if (value === undefined) break
      try {
        facts.url = new URL(value)
      } catch {
        // Not a URL: no domain rule can match it, and the tool itself refuses it.
      }
      break
  }
  return facts
}

/** A path as a call names it: `..` folded, `~` expanded, relative to `cwd`; and with symlinks resolved. */
export function touchedPath(cwd: string, named: string, home?: string): TouchedPath {
  const lexical = resolveToolPath(cwd, named, home)
  return { lexical, real: realPathOf(lexical) }
}

/** The directories writes may touch without an explicit rule: the working directory and any additional ones. */
export function workspaceRoots(cwd: string, additional: readonly string[] = []): string[] {
  return [cwd, ...additional.map((d) => resolveToolPath(cwd, d))].map(realPathOf)
}

export function insideWorkspace(path: TouchedPath, roots: readonly string[]): boolean {
  return roots.some((root) => isInside(path.real, root))
}
