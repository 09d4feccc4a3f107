import { createHash } from 'node:crypto'
import { appendFileSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { AssistantBlock, InputBlock } from '../llm/messages.js'
import type { SurfaceEvent } from '../session/events.js'
import { claudeToolName } from '../tools/claude-names.js'

/**
 * The session as Claude Code writes its transcripts, for hooks that parse `transcript_path` (docs/claude-code.md,
 * "Transcript"): one JSON object per line, each a `user` or `assistant` entry carrying an Anthropic `message`, chained
 * by `uuid`/`parentUuid`, with `sessionId`, `cwd` and an ISO `timestamp`. It is a projection of the surface the next
 * request would send, brought up to date before hooks run; the session log stays the only truth, and nothing reads
 * this file back.
 */
export interface TranscriptFacts {
  sessionId: string
  cwd: string
  model: string
  version: string
}

/** A version-5 style UUID named by `text`, so rewriting the file keeps every entry's uuid. */
function stableUuid(text: string): string {
  const hex = createHash('sha1').update('rein-claude-transcript:').update(text).digest('hex')
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

function inputContent(blocks: readonly InputBlock[]): string | Record<string, unknown>[] {
  if (blocks.length === 1 && blocks[0].type === 'text') return blocks[0].text
  return blocks.map((b) => (b.type === 'text' ? { type: 'text', text: b.text } : { type: 'image', source: { type: 'base64', media_type: b.mimeType, data: b.data } }))
}

function parsedInput(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text)
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
  } catch {
    // Arguments that are not JSON were refused as the tool's error result; the entry shows the call with no input.
    return {}
  }
}

function assistantContent(blocks: readonly AssistantBlock[]): Record<string, unknown>[] {
  return blocks.map((b) => {
    switch (b.type) {
      case 'reasoning':
        return { type: 'thinking', thinking: b.text, signature: '' }
      case 'text':
        return { type: 'text', text: b.text }
      case 'tool-call':
        return { type: 'tool_use', id: b.id, name: claudeToolName(b.name), input: parsedInput(b.arguments) }
    }
  })
}

/** The entry for one surface event: what Claude Code would have written for the same message. */
function entry(event: SurfaceEvent, facts: TranscriptFacts): Record<string, unknown> {
  switch (event.type) {
    case 'user/message':
      return { type: 'user', message: { role: 'user', content: inputContent(event.data.content) } }
    case 'context/message':
    case 'steering/message':
      // Injected input is user-role content the person did not type: Claude Code marks such entries `isMeta`.
      return { type: 'user', isMeta: true, message: { role: 'user', content: inputContent(event.data.content) } }
    case 'assistant/message': {
      const { message, turn, step } = event.data
      const toolUse = message.content.some((b) => b.type === 'tool-call')
      const body = {
        id: `msg_${stableUuid(`${facts.sessionId}:${turn}:${step}`).replaceAll('-', '')}`,
        type: 'message',
        role: 'assistant',
        model: facts.model,
        content: assistantContent(message.content),
        stop_reason: toolUse ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: event.data.usage?.inputUncached ?? 0, cache_read_input_tokens: event.data.usage?.inputCacheRead ?? 0, output_tokens: event.data.usage?.output ?? 0 },
      }
      return { type: 'assistant', message: body }
    }
    case 'tool/result': {
      const text = event.data.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
      return {
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: event.data.callId, content: text, is_error: event.data.isError }] },
        toolUseResult: text,
      }
    }
  }
}

/** One line of the transcript: the entry for `event`, chained to the line before it (`parent`). */
function transcriptLine(event: SurfaceEvent, parent: string | null, facts: TranscriptFacts): string {
  const line = {
    parentUuid: parent,
    isSidechain: false,
    userType: 'external',
    cwd: facts.cwd,
    sessionId: facts.sessionId,
    version: facts.version,
    ...entry(event, facts),
    uuid: uuidOf(event, facts),
    timestamp: new Date(event.time).toISOString(),
  }
  return `${JSON.stringify(line)}\n`
}

const uuidOf = (event: SurfaceEvent, facts: TranscriptFacts): string => stableUuid(`${facts.sessionId}#${event.seq}`)

/** The transcript's lines for a surface, oldest first, each ending in a newline. */
export function transcriptText(surface: readonly SurfaceEvent[], facts: TranscriptFacts): string {
  return surface.map((event, i) => transcriptLine(event, i === 0 ? null : uuidOf(surface[i - 1], facts), facts)).join('')
}

/**
 * Where the transcript of the session logged at `logPath` lives: `claude-transcripts/<log name>` beside the log, a
 * folder the store does not list (it lists `*.jsonl` files only).
 */
export function transcriptPathFor(logPath: string): string {
  return join(dirname(logPath), 'claude-transcripts', basename(logPath))
}

/** The seqs each transcript file holds, as this process last wrote it: a surface that only grew is appended. */
const written = new Map<string, readonly number[]>()

/**
 * Brings the transcript up to date with the surface. A surface that only grew since this process last wrote the file
 * appends its new lines; any other change (a compaction replaced entries, a resumed session's first write) rewrites
 * it whole, through a temporary file renamed over the old one, so a reader never sees half of it.
 */
export function writeTranscript(logPath: string, surface: readonly SurfaceEvent[], facts: TranscriptFacts): string {
  const path = transcriptPathFor(logPath)
  const before = written.get(path)
  const seqs = surface.map((e) => e.seq)
  if (before && before.length <= seqs.length && before.every((seq, i) => seqs[i] === seq) && existsSync(path)) {
    const lines = surface.slice(before.length).map((event, i) => {
      const at = before.length + i
      return transcriptLine(event, at === 0 ? null : uuidOf(surface[at - 1], facts), facts)
    })
    if (lines.length) appendFileSync(path, lines.join(''))
  } else {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    const temporary = `${path}.${process.pid}.tmp`
    writeFileSync(temporary, transcriptText(surface, facts), { mode: 0o600 })
    renameSync(temporary, path)
  }
  written.set(path, seqs)
  return path
}
