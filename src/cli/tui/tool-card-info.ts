import type { EventDataMap, JsonValue } from '../../session/events.js'
import { resultText, sandboxMark, SANDBOX_NOTE_PREFIX } from '../../sandbox/result-mark.js'

/** How many output lines a card keeps: enough to see where a command got to, few enough to stay compact. */
export const TAIL_LINES = 5

/** Argument keys that name what a call acts on, most specific first. */
const TARGET_KEYS = ['path', 'file_path', 'command', 'pattern', 'url', 'query', 'glob', 'description']

/** Tools whose output tail is worth showing on the card. */
const TAIL_TOOLS = new Set(['bash', 'shell', 'exec'])

/** One line naming what a tool call acts on, from its raw arguments text. Never throws on bad JSON. */
export function toolCardTarget(name: string, argumentsText: string, max = 80): string {
  let target = ''
  try {
    const args = JSON.parse(argumentsText) as unknown
    if (args && typeof args === 'object') {
      const record = args as Record<string, unknown>
      const key = TARGET_KEYS.find((k) => typeof record[k] === 'string' && record[k] !== '')
      if (key) target = String(record[key])
    }
  } catch {
    // The model wrote arguments that are not JSON; the card shows the raw start instead, which is what it sent.
    target = argumentsText
  }
  void name
  const line = target.split('\n')[0]
  const more = target.includes('\n') ? ' …' : ''
  return line.length > max ? `${line.slice(0, max - 1)}…` : line + more
}

/** Keeps the last `TAIL_LINES` lines after appending `text` (which may hold partial lines). */
export function appendTail(tail: readonly string[], text: string): string[] {
  const lines = tail.slice()
  const pieces = text.split('\n')
  if (lines.length) lines[lines.length - 1] += pieces.shift() ?? ''
  lines.push(...pieces)
  return lines.slice(-TAIL_LINES)
}

function metaString(meta: JsonValue | undefined, key: string): string | undefined {
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
    const value = meta[key]
    if (typeof value === 'string') return value
  }
  return undefined
}

/** What a finished card shows of the sandbox: that the call ran confined, and the sandbox's note when it stopped something. */
export interface CardSandbox {
  note?: string
}

/**
 * What a finished card shows from a `tool/result`: the diff from `meta`, the output tail, the error line, the sandbox
 * mark. The sandbox's note is shown on its own line, so the tail leaves it out.
 */
export function toolResultDetails(
  result: EventDataMap['tool/result'],
  toolName?: string,
): { diff?: string; tail: string[]; hiddenLines?: number; error?: string; sandbox?: CardSandbox } {
  const full = resultText(result.content)
  const mark = sandboxMark(result.meta, full)
  const text = mark?.note ? withoutLastLineStarting(full, SANDBOX_NOTE_PREFIX) : full
  const diff = metaString(result.meta, 'diff')
  const out: { diff?: string; tail: string[]; hiddenLines?: number; error?: string; sandbox?: CardSandbox } = { tail: [] }
  if (mark) out.sandbox = mark.note ? { note: mark.note } : {}
  if (diff) out.diff = diff
  if (result.isError) {
    out.error = (result.error?.message ?? text).trim().split('\n')[0] || 'failed'
  }
  if (!toolName || TAIL_TOOLS.has(toolName)) {
    const lines = text.replace(/\n+$/, '').split('\n')
    if (!diff && lines.length && !(lines.length === 1 && lines[0] === '')) out.tail = lines.slice(-TAIL_LINES)
    if (lines.length > out.tail.length && out.tail.length) out.hiddenLines = lines.length - out.tail.length
  }
  return out
}

/** `text` without its last line that starts with `prefix` (the one `sandboxMark` read the note from). */
function withoutLastLineStarting(text: string, prefix: string): string {
  const lines = text.split('\n')
  const at = lines.findLastIndex((l) => l.startsWith(prefix))
  if (at >= 0) lines.splice(at, 1)
  return lines.join('\n')
}

/** `1.2 s`, `340 ms`, `2 m 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const m = Math.floor(ms / 60_000)
  const s = Math.round((ms % 60_000) / 1000)
  return `${m} m ${String(s).padStart(2, '0')} s`
}
