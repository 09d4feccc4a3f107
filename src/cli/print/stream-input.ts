import { z } from 'zod'
import type { InputBlock } from '../../llm/messages.js'
import { LineLimiter, tooLongMessage } from '../../frontend/line-limit.js'
import { CONTROL_TYPES, parseControlLine, type ControlLine } from './control/wire.js'

/**
 * `--input-format stream-json`: user messages as JSON lines on standard input, Claude Code's way
 * (`{"type":"user","message":{"role":"user","content":"…"}}`; content a string, or text and base64 image blocks).
 * Other fields Claude Code sends (`session_id`, `parent_tool_use_id`, `uuid`) are accepted and not used. The Agent
 * SDK's control lines (`control_request`, `control_response`, `control_cancel_request`) travel on the same stream and
 * are handed on as they are (src/cli/print/control/).
 */
const textBlock = z.object({ type: z.literal('text'), text: z.string() })
const imageBlock = z.object({
  type: z.literal('image'),
  source: z.object({ type: z.literal('base64'), media_type: z.string().regex(/^image\//), data: z.string() }),
})
const userLine = z.object({
  type: z.literal('user'),
  message: z.object({
    role: z.literal('user'),
    content: z.union([z.string(), z.array(z.union([textBlock, imageBlock]))]),
  }),
})

const SHAPE = '{"type":"user","message":{"role":"user","content":"…"}}'

/**
 * One stdin line read: the message's content to deliver, a control line, a sentence saying why it was ignored (with
 * the `request_id` of a malformed control request, which is still owed an answer), or nothing (blank).
 */
export type InputLine = { content: InputBlock[] } | { control: ControlLine } | { problem: string; requestId?: string } | { blank: true }

/** Reads one line (without its newline). `n` is its 1-based line number, for the sentence a person reads. */
export function parseInputLine(text: string, n: number): InputLine {
  if (!text.trim()) return { blank: true }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { problem: `Line ${n} of standard input is not JSON (${(error as Error).message}); it was ignored. Send one ${SHAPE} per line.` }
  }
  const type = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { type?: unknown }).type : undefined
  if (typeof type === 'string' && CONTROL_TYPES.has(type)) {
    const control = parseControlLine(value)
    if ('line' in control) return { control: control.line }
    const id = (value as { request_id?: unknown }).request_id
    const requestId = type === 'control_request' && typeof id === 'string' && id ? id : undefined
    return { problem: `Line ${n} of standard input is a malformed ${type} (${control.problem}); it was ignored.`, ...(requestId ? { requestId } : {}) }
  }
  if (type !== 'user') {
    const what = typeof type === 'string' ? `a "${type.slice(0, 40)}" message` : 'not a message'
    return { problem: `Line ${n} of standard input is ${what}; Rein reads only user messages there (${SHAPE}), so it was ignored.` }
  }
  const parsed = userLine.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue.path.length ? issue.path.join('.') : 'the line'
    return {
      problem: `Line ${n} of standard input is not a user message Rein can send (${where}: ${issue.message}); it was ignored. Content is a string or a list of text and base64 image blocks.`,
    }
  }
  const content = parsed.data.message.content
  const blocks: InputBlock[] =
    typeof content === 'string'
      ? [{ type: 'text', text: content }]
      : content.map((b) => (b.type === 'text' ? { type: 'text', text: b.text } : { type: 'image', mimeType: b.source.media_type, data: b.source.data }))
  if (!blocks.some((b) => b.type === 'image' || b.text.trim())) {
    return { problem: `Line ${n} of standard input is a user message with no content; it was ignored.` }
  }
  return { content: blocks }
}

/** Lines of `input`, each parsed, with lines over `limit` bytes reported instead of held. */
export async function* inputLines(input: AsyncIterable<Buffer | string>, limit: number): AsyncGenerator<InputLine> {
  const limiter = new LineLimiter(limit)
  let n = 0
  const read = (pieces: ReturnType<LineLimiter['push']>): InputLine[] =>
    pieces.map((piece) => {
      n++
      return 'tooLong' in piece ? { problem: `Line ${n} of standard input: ${tooLongMessage(piece.tooLong, limit)}` } : parseInputLine(piece.line.toString('utf8'), n)
    })
  for await (const chunk of input) yield* read(limiter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk))
  yield* read(limiter.end())
}
