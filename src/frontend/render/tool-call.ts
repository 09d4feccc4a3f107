import { resolve } from 'node:path'
import type { InputBlock } from '../../llm/messages.js'
import type { JsonValue } from '../../session/events.js'
import { resultText, sandboxMark, SANDBOX_NOTE_PREFIX } from '../../sandbox/result-mark.js'
import { counted } from '../../text/count.js'
import type { ShownArgs, ShownResult, ToolDisplay, ToolFacts, ToolKind } from '../../tools/tool.js'
import { plainLine, plainText } from './plain.js'
import { TAIL_LINES } from './tail.js'

/**
 * What a surface needs of a tool to show its calls: the tool's own display and facts (`display` absent: the generic
 * display). Surfaces look tools up by name in the agent's tool list; a name no tool has is shown generically too.
 */
export type ShownTool = ToolFacts & { kind?: ToolKind; display?: ToolDisplay }
export type ToolLookup = (name: string) => ShownTool | undefined

/** The longest title any surface gets; each may cut it shorter. */
export const TITLE_MAX = 200

/** A call as every surface shows it. All strings are plain: no escape sequence or control character. */
export interface ShownCall {
  /** One line naming the call as a sentence would: `Read src/a.ts`, the command itself for bash. */
  title: string
  /** What the call acts on (`src/a.ts`), shown after the tool's name on cards; the raw arguments when not JSON. */
  subject: string
  kind: ToolKind
  /** Absolute paths of the files the call reads or changes, with the line it starts at when it names one. */
  locations: { path: string; line?: number }[]
  /** The parsed arguments, or the raw text when they did not parse. */
  input: unknown
  /** True when the title is a command, which surfaces set as code. */
  command: boolean
}

/** Title, subject, kind and locations of a call, from its tool's display and the raw arguments text the model wrote. */
export function describeCall(tool: ShownTool | undefined, name: string, argumentsText: string, cwd: string): ShownCall {
  const input = parseArguments(argumentsText)
  const args: ShownArgs = isRecord(input) ? input : {}
  const display = tool?.display
  let title: string
  let subject: string
  if (display) {
    const own = safely(() => display.subject(args, cwd))
    subject = own === undefined ? '' : plainLine(own, TITLE_MAX)
    const words = [display.verb, subject].filter((w) => w).join(' ')
    title = words ? plainLine(words, TITLE_MAX) : plainLine(name, TITLE_MAX)
    // Arguments that are not JSON name nothing the display can read: the card shows what the model sent.
    if (typeof input === 'string' && !subject) subject = plainLine(input, TITLE_MAX)
  } else {
    const generic = genericSubject(args, input)
    subject = plainLine(generic ?? '', TITLE_MAX)
    title = plainLine([genericLabel(name), generic].filter((w) => w).join(' '), TITLE_MAX)
  }
  return { title, subject, kind: tool?.kind ?? 'other', locations: locationsOf(tool, args, cwd), input, command: tool?.target?.kind === 'command' && display !== undefined && !display.verb }
}

/** A finished call as every surface shows it; strings are plain, except `diff` and `tail` lines (plain per line). */
export interface ShownCallResult {
  /** One line about the result: the tool's own summary, else the error's first line or the output's line count. */
  summary: string
  /** The unified diff of the change the call made (edit, write). */
  diff?: string
  /** The last lines of output, for tools whose output is a running log (`display.output: 'tail'`) and names no tool has. */
  tail: string[]
  /** Output lines before the tail that it leaves out (a surface may offer to show them). */
  hiddenLines?: number
  /** The error's first line, for a failed call. */
  error?: string
  /** Present when the call ran inside the sandbox, with the sandbox's note when it stopped something. */
  sandbox?: { note?: string }
}

/** What a finished call shows, from its tool's display and its `tool/result`. */
export function describeResult(
  tool: ShownTool | undefined,
  result: { content: readonly InputBlock[]; isError: boolean; meta?: JsonValue; error?: { message: string } },
): ShownCallResult {
  const shown: ShownResult = { content: result.content, isError: result.isError, ...(result.meta !== undefined ? { meta: result.meta } : {}) }
  const full = resultText(result.content)
  const mark = sandboxMark(result.meta, full)
  const text = mark?.note ? withoutLastLineStarting(full, SANDBOX_NOTE_PREFIX) : full
  const diff = result.isError ? undefined : safely(() => tool?.display?.diff?.(shown))
  const error = result.isError ? plainLine((result.error?.message ?? text).trim().split('\n')[0] ?? '', TITLE_MAX) || 'failed' : undefined
  const own = safely(() => tool?.display?.summary?.(shown))
  const summary = own !== undefined ? plainLine(own, TITLE_MAX) : (error ?? genericSummary(result.content, text))
  const out: ShownCallResult = { summary, tail: [] }
  if (diff) out.diff = plainText(diff)
  if (error !== undefined) out.error = error
  if (mark) out.sandbox = mark.note ? { note: plainLine(mark.note, 400) } : {}
  if (!diff && (tool === undefined || tool.display?.output === 'tail')) {
    const lines = plainText(text).replace(/\n+$/, '').split('\n')
    if (!(lines.length === 1 && lines[0] === '')) out.tail = lines.slice(-TAIL_LINES)
    if (out.tail.length && lines.length > out.tail.length) out.hiddenLines = lines.length - out.tail.length
  }
  return out
}

function genericSummary(content: readonly InputBlock[], text: string): string {
  const images = content.filter((b) => b.type === 'image').length
  const trimmed = text.replace(/\n+$/, '')
  const lines = trimmed === '' ? 0 : trimmed.split('\n').length
  if (images > 0 && lines === 0) return counted(images, 'image')
  return lines === 0 ? 'no output' : counted(lines, 'line')
}

/** Argument keys that name what a call acts on, most specific first: the generic display's choice. */
const TARGET_KEYS = ['file_path', 'path', 'command', 'pattern', 'url', 'query', 'name', 'description']

/** An MCP tool (`mcp__server__tool`) as `server: tool`, any other name as itself. */
function genericLabel(name: string): string {
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name)
  return mcp ? `${mcp[1]}: ${mcp[2]}` : name
}

/** The argument that names what a call acts on: a well-known key first, else the first string argument. */
function genericSubject(args: ShownArgs, input: unknown): string | undefined {
  const key = TARGET_KEYS.find((k) => typeof args[k] === 'string' && args[k] !== '')
  const first = key ?? Object.keys(args).find((k) => typeof args[k] === 'string' && args[k] !== '')
  if (first !== undefined) return String(args[first])
  // Arguments that are not JSON: their start, as the model sent them.
  return typeof input === 'string' && input.trim() ? input : undefined
}

function locationsOf(tool: ShownTool | undefined, args: ShownArgs, cwd: string): { path: string; line?: number }[] {
  const target = tool?.target
  const keys = target && (target.kind === 'file' || target.kind === 'path') ? [target.argument] : tool ? [] : ['file_path', 'path']
  const key = keys.find((k) => typeof args[k] === 'string' && args[k] !== '')
  if (key === undefined) return []
  const path = args[key] as string
  if (path.includes('\0')) return []
  const absolute = resolve(cwd, path)
  const line = [args.offset, args.line].find((v): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0)
  return [line ? { path: absolute, line } : { path: absolute }]
}


/** A display function's answer, or undefined when it threw: a broken display never breaks a surface. */
function safely<T>(f: () => T | undefined): T | undefined {
  try {
    return f()
  } catch {
    // The tool's display failed on these arguments; the generic display stands in.
    return undefined
  }
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    // The model wrote arguments that are not JSON; the tool will answer with an error. Show the raw text.
    return text
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `text` without its last line that starts with `prefix` (the one `sandboxMark` read the note from). */
function withoutLastLineStarting(text: string, prefix: string): string {
  const lines = text.split('\n')
  const at = lines.findLastIndex((l) => l.startsWith(prefix))
  if (at >= 0) lines.splice(at, 1)
  return lines.join('\n')
}
