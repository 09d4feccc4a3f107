import type { PermissionRequest } from '../../agent/types.js'
import { unifiedDiff } from '../../tools/diff-meta.js'
import { displayPath } from '../../tools/paths.js'
import { describeCall, TITLE_MAX, type ShownTool } from './tool-call.js'
import { plainLine, plainText } from './plain.js'

/** A permission question as every surface asks it. All strings are plain: no escape sequence or control character. */
export interface PermissionQuestion {
  /** What the call would do, from the tool's display (`Edit src/a.ts`). */
  title: string
  /** Why Rein asks: the policy's reason, whole. */
  reason: string
  /** The rule "allow always" would save (`Bash(npm test)`), when there is one. */
  rule?: string
  /** The whole command for a command tool, every line kept: a person approves what runs, so it is never cut. */
  command?: string
  /** The change the call would make, read before approval from the file as it is now and the proposed text. */
  change?: QuestionChange
  /** The subagent that asks, named for the question. */
  asker?: string
}

export interface QuestionChange {
  /** Absolute path of the file. */
  path: string
  /** The path as shown: relative to the working directory when inside it. */
  shown: string
  /** The file's text now; null for a file that does not exist yet. */
  oldText: string | null
  newText: string
  /** The unified diff; absent when it would be too large to compute or show (`unifiedDiff`'s caps). */
  diff?: string
}

/** The question for `request`, with the diff of a file change computed from the workspace as it is now. */
export async function permissionQuestion(request: PermissionRequest, tool: ShownTool | undefined, cwd: string): Promise<PermissionQuestion> {
  const call = describeCall(tool, request.call.name, request.call.arguments, cwd)
  const question: PermissionQuestion = { title: call.title, reason: plainText(request.reason) }
  if (request.suggestedRule) question.rule = plainLine(request.suggestedRule, TITLE_MAX * 4)
  if (request.subagent) question.asker = plainLine(`Subagent ${request.subagent.agent} (${request.subagent.description})`, TITLE_MAX)
  const args = isRecord(call.input) ? call.input : {}
  const target = tool?.target
  if (target?.kind === 'command' && typeof args[target.argument] === 'string') question.command = plainText(args[target.argument] as string)
  const change = await proposedChange(tool, args, cwd)
  if (change) question.change = change
  return question
}

async function proposedChange(tool: ShownTool | undefined, args: Record<string, unknown>, cwd: string): Promise<QuestionChange | undefined> {
  let proposed
  try {
    proposed = await tool?.display?.proposed?.(args, cwd)
  } catch {
    // The file could not be read as the tool would read it; the question is asked without a diff.
    return undefined
  }
  if (!proposed) return undefined
  const shown = plainLine(displayPath(cwd, proposed.path), TITLE_MAX)
  const diff = await unifiedDiff(shown, proposed.before ?? '', proposed.after)
  return { path: proposed.path, shown, oldText: proposed.before, newText: proposed.after, ...(diff !== undefined ? { diff: plainText(diff) } : {}) }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
