import type { ToolCallInfo } from '../agent/extensions.js'
import { isInside, realPathOf, resolveToolPath } from '../tools/paths.js'
import { ruleNameOf } from './rules.js'
import { splitCommand, type SplitCommand } from './shell-split.js'

/**
 * How the policy treats a tool by default. `read`: never changes anything (free in every mode). `edit`: writes
 * files. `exec`: runs commands. `fetch`: reaches the network. `free`: only touches state the agent itself owns
 * (killing its own jobs). `other`: tools Rein does not know (MCP), which may do anything.
 */
export type ToolCategory = 'read' | 'edit' | 'exec' | 'fetch' | 'free' | 'other'

const CATEGORIES: Readonly<Record<string, ToolCategory>> = {
  read: 'read',
  grep: 'read',
  glob: 'read',
  ls: 'read',
  job_output: 'read',
  todo_write: 'read',
  write: 'edit',
  edit: 'edit',
  bash: 'exec',
  web_fetch: 'fetch',
  job_kill: 'free',
  // The call itself changes nothing: every call the child makes is judged by this policy on its own.
  task: 'free',
}

/** A path a call touches: as named (`..` folded, `~` expanded) and with symlinks resolved. */
export interface TouchedPath {
  lexical: string
  real: string
}

/** What the policy needs to know about one call, derived once from its arguments. */
export interface CallFacts {
  tool: string
  ruleName: string
  category: ToolCategory
  path?: TouchedPath
  command?: SplitCommand & { raw: string }
  url?: URL
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

export function callFacts(call: ToolCallInfo, cwd: string, home?: string): CallFacts {
  const input = (typeof call.input === 'object' && call.input !== null ? call.input : {}) as Record<string, unknown>
  const facts: CallFacts = {
    tool: call.name,
    ruleName: ruleNameOf(call.name),
    category: CATEGORIES[call.name] ?? 'other',
  }
  const named =
    call.name === 'read' || call.name === 'write' || call.name === 'edit'
      ? str(input.file_path)
      : call.name === 'grep' || call.name === 'glob' || call.name === 'ls'
        ? (str(input.path) ?? '.')
        : undefined
  if (named !== undefined) facts.path = touchedPath(cwd, named, home)
  const command = str(input.command)
  if (call.name === 'bash' && command !== undefined) facts.command = { ...splitCommand(command), raw: command }
  const url = str(input.url)
  if (call.name === 'web_fetch' && url !== undefined) {
    try {
      facts.url = new URL(url)
    } catch {
      // Not a URL: no domain rule can match it, and the tool itself refuses it.
    }
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
