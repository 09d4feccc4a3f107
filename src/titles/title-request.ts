import type { ModelAdapter, ModelConfig, ModelRequest } from '../llm/adapter.js'

/** The model a title request uses: the catalog's cheapest (docs/configuration.md, "Session titles"). */
export const TITLE_MODEL = 'deepseek-flash'
/** Output tokens a title request may use: a title is a handful of words, and thinking is off. */
export const TITLE_MAX_TOKENS = 32
/** Characters of the first prompt, and of the answer's start, the request quotes. */
export const PROMPT_CHARS = 2_000
export const REPLY_CHARS = 400

/** The title request's system prompt; constant, so every title request shares it. */
export const TITLE_SYSTEM =
  'You name coding sessions for a list of past sessions. Reply with one title of at most six words that says what ' +
  'the developer wanted: plain text on a single line, no quotes, no label, no final period.'

/** What a title is made from: the session's first prompt and the start of the answer to it (may be empty). */
export interface TitleSource {
  prompt: string
  reply: string
}

/**
 * The one request a title costs: no tools, thinking off, at most `TITLE_MAX_TOKENS` of output, a few hundred tokens
 * of input. It is not a step of the session and does not share its prefix: it is built from the logged first prompt
 * and answer alone, and its model and usage are logged with the title it gave (src/titles/session-titles.ts).
 * `userId` is the session's DeepSeek `user_id`, so the call is billed to the same user as the session's requests.
 */
export function titleRequest(adapter: ModelAdapter, source: TitleSource, userId?: string): ModelRequest {
  const base: ModelConfig = { model: TITLE_MODEL, effort: 'off', ...(userId !== undefined ? { userId } : {}) }
  const config: ModelConfig = { ...(adapter.headerConfig?.(base) ?? base), maxOutputTokens: TITLE_MAX_TOKENS }
  const reply = source.reply.trim() ? `\n\nThe assistant began its answer:\n${clip(source.reply, REPLY_CHARS)}` : ''
  const text = `Title this session.\n\nThe developer wrote:\n${clip(source.prompt, PROMPT_CHARS)}${reply}`
  return { config, system: TITLE_SYSTEM, tools: [], messages: [{ role: 'user', content: [{ type: 'text', text }] }] }
}

function clip(text: string, chars: number): string {
  const trimmed = text.trim()
  return trimmed.length > chars ? `${trimmed.slice(0, chars)}…` : trimmed
}
