import { resolve } from 'node:path'
import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk'
import type { InputBlock } from '../llm/messages.js'
import type { JsonValue } from '../session/events.js'
import { resultText, sandboxMark, SANDBOXED_LABEL } from '../sandbox/result-mark.js'
import { describeCall, type ShownTool } from '../frontend/render/index.js'

/** How an editor shows one tool call: its title line, its icon group and the files it touches. */
export interface AcpCallDisplay {
  title: string
  kind: ToolKind
  locations: ToolCallLocation[]
  /** The parsed arguments, or the raw text when they did not parse. */
  rawInput: unknown
}

/** Title, kind and locations of a call, from its tool's own display; a command's title is set as code. */
export function describeToolCall(tool: ShownTool | undefined, name: string, argumentsText: string, cwd: string): AcpCallDisplay {
  const call = describeCall(tool, name, argumentsText, cwd)
  const title = call.command ? '`' + call.title.replaceAll('`', "'") + '`' : call.title
  return { title, kind: call.kind, locations: call.locations, rawInput: call.input }
}

/**
 * What a finished call shows in the editor. A result whose `meta` names a changed file (`path` with `oldText` and
 * `newText`, or `path` with a unified `diff`) shows as a diff; a failed call shows its message; a tool whose output is
 * a running log (its display's `output: 'tail'`) shows it fenced as code; anything else shows its text.
 */
export function resultContent(
  tool: ShownTool | undefined,
  content: readonly InputBlock[],
  isError: boolean,
  meta: JsonValue | undefined,
  cwd: string,
): ToolCallContent[] {
  const diff = isError ? undefined : diffFromMeta(meta, cwd)
  if (diff) return [diff]
  const out: ToolCallContent[] = []
  for (const block of content) {
    if (block.type === 'image') {
      out.push({ type: 'content', content: { type: 'image', mimeType: block.mimeType, data: block.data } })
    } else if (block.text.length > 0) {
      const text = !isError && tool?.display?.output === 'tail' ? fenced(block.text) : block.text
      out.push({ type: 'content', content: { type: 'text', text } })
    }
  }
  return out
}

/**
 * What a result's update adds when the call ran sandboxed (docs/acp.md): the title gains `(sandboxed)`, and
 * `_meta.rein.sandbox` carries the mark (`{ sandboxed: true, note?, refusedHosts? }`) for clients that read it. The
 * sandbox's note stays in the shown output too, where the model read it.
 */
export function sandboxUpdate(
  title: string | undefined,
  meta: JsonValue | undefined,
  content: readonly InputBlock[],
): { title?: string; _meta?: { rein: { sandbox: { sandboxed: true; note?: string; refusedHosts?: string[] } } } } {
  const mark = sandboxMark(meta, resultText(content))
  if (!mark) return {}
  const sandbox = { sandboxed: true as const, ...(mark.note ? { note: mark.note } : {}), ...(mark.refusedHosts.length ? { refusedHosts: mark.refusedHosts } : {}) }
  return { ...(title ? { title: `${title} (${SANDBOXED_LABEL})` } : {}), _meta: { rein: { sandbox } } }
}

/** Output of a running command as it streams, fenced like the final output. */
export function progressContent(text: string): ToolCallContent[] {
  return [{ type: 'content', content: { type: 'text', text: fenced(text) } }]
}

/**
 * The diff a file-changing tool left in its result's `meta`. ACP wants the whole old and new text; when only a
 * unified diff is there, its hunks stand in for both (context and removed lines as old, context and added as new).
 */
export function diffFromMeta(meta: JsonValue | undefined, cwd: string): ToolCallContent | undefined {
  if (!isRecord(meta)) return undefined
  const path = stringArg(meta, 'path', 'file_path', 'filePath')
  if (path === undefined) return undefined
  const absolute = resolve(cwd, path)
  const newText = stringArg(meta, 'newText', 'new_text', 'after')
  if (newText !== undefined) {
    const oldText = stringArg(meta, 'oldText', 'old_text', 'before')
    return { type: 'diff', path: absolute, oldText: oldText ?? null, newText }
  }
  const unified = stringArg(meta, 'diff', 'patch', 'unifiedDiff')
  if (unified === undefined) return undefined
  const sides = sidesOfUnifiedDiff(unified)
  if (!sides) return undefined
  // A created file has no old text; ACP says so with null rather than an empty string.
  return { type: 'diff', path: absolute, oldText: meta.created === true ? null : sides.oldText, newText: sides.newText }
}

/**
 * The old and new side of a unified diff's hunks, or undefined when it has no hunk. Each line keeps its newline,
 * except where the diff says `\ No newline at end of file`.
 */
export function sidesOfUnifiedDiff(diff: string): { oldText: string; newText: string } | undefined {
  const oldLines: string[] = []
  const newLines: string[] = []
  let inHunk = false
  let last = ' '
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@')) {
      inHunk = true
      continue
    }
    if (!inHunk || line === '') continue
    const mark = line[0]
    const text = line.slice(1) + '\n'
    if (mark === ' ' || mark === '-') oldLines.push(text)
    if (mark === ' ' || mark === '+') newLines.push(text)
    if (mark === '\\') {
      if (last !== '+') oldLines.push(oldLines.pop()?.slice(0, -1) ?? '')
      if (last !== '-') newLines.push(newLines.pop()?.slice(0, -1) ?? '')
    }
    last = mark
  }
  if (!inHunk) return undefined
  return { oldText: oldLines.join(''), newText: newLines.join('') }
}

function fenced(text: string): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length))
  const fence = '`'.repeat(longest + 1)
  return `${fence}\n${text.replace(/\n$/, '')}\n${fence}`
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function stringArg(args: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = args[key]
    if (typeof value === 'string') return value
  }
  return undefined
}
