import { appendFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { KNOWN_MODEL_IDS } from '../catalog.js'
import { anthropicFrames, anthropicMessage } from './anthropic-wire.js'
import { chatCompletion, chatFrames } from './chat-wire.js'
import { planResponse, type ResponsePlan } from './plan.js'
import { PromptCache, serializedPrompt } from './prompt-cache.js'
import { refusalFor } from './rules.js'
import { Script, type MockResponse } from './script.js'

export type { MockError, MockResponse, MockToolCall } from './script.js'
export { EXHAUSTED_TEXT, parseScript } from './script.js'

/** One request as the mock received it. Headers exclude credentials. */
export interface RecordedRequest {
  /** 0-based, in arrival order, counting every request the server received. */
  index: number
  time: number
  method: string
  path: string
  headers: Record<string, string>
  /** The parsed JSON body, or the raw text when it was not JSON; null for a bodiless request. */
  body: unknown
  wire?: 'chat' | 'anthropic'
  /** The simulated prompt size and cache hit, in estimated tokens (see prompt-cache.ts). */
  promptTokens?: number
  cacheHitTokens?: number
  /** DeepSeek's refusal message when the mock refused the request under DeepSeek's rules (rules.ts). */
  refused?: string
  /** True when the script had nothing left and the mock answered with its exhausted text. */
  exhausted?: boolean
  /** When the answer's first byte was written, in milliseconds on this process's `performance.now()` clock. */
  firstByteAt?: number
}

export interface MockModelOptions {
  script?: readonly MockResponse[]
  /** Default 0: any free port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
  /** Appends every recorded request to this file as one JSON line. */
  recordFile?: string
  /**
   * Default true. False keeps each recorded request without its body once answered, so a session of thousands of
   * requests holds O(one request) of bodies, not all of them (long-session benches).
   */
  recordBodies?: boolean
  /** The ids the mock serves and `GET /models` lists; any other id is refused (400). Default: the catalog's current ids. */
  models?: readonly string[]
}

export interface MockModel {
  /** The base URL to use as `DEEPSEEK_BASE_URL`. */
  url: string
  readonly requests: RecordedRequest[]
  /** Adds responses to the end of the script. */
  push(...responses: MockResponse[]): void
  /** How many TCP connections are open right now (keep-alive sockets included). */
  readonly connections: number
  close(): Promise<void>
}

const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'cookie', 'proxy-authorization'])

/**
 * Starts DeepSeek's mock on loopback: `POST /chat/completions` (also `/v1/chat/completions`) and
 * `POST /anthropic/v1/messages` (also `/anthropic/messages`, the Messages API reference's path; never `/v1/anthropic/…`: DeepSeek has no such path, so the mock answers 404),
 * streaming when the body says `stream: true` and one JSON object otherwise, and `GET /models`. Every request takes the
 * next fitting response from the script (script.ts) and is recorded.
 */
export async function startMockModel(options: MockModelOptions = {}): Promise<MockModel> {
  const script = new Script(options.script)
  const cache = new PromptCache()
  const requests: RecordedRequest[] = []
  const served = options.models ?? KNOWN_MODEL_IDS
  const sockets = new Set<Socket>()

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A failure inside the mock is reported to the client as a 500 so the test sees it, never swallowed.
      if (!res.headersSent) sendJson(res, 500, { error: { message: `mock model failed: ${String(error)}`, type: 'mock_error' } })
      else res.destroy()
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req)
    const path = new URL(req.url ?? '/', 'http://mock').pathname.replace(/\/+$/, '')
    const record: RecordedRequest = {
      index: requests.length,
      time: Date.now(),
      method: req.method ?? 'GET',
      path,
      headers: publicHeaders(req),
      body: parseBody(text),
    }
    requests.push(record)
    try {
      await route(record, res)
    } finally {
      if (options.recordFile) appendFileSync(options.recordFile, `${JSON.stringify(record)}\n`)
      if (options.recordBodies === false) record.body = null
    }
  }

  async function route(record: RecordedRequest, res: ServerResponse): Promise<void> {
    if (record.method === 'GET' && (record.path === '/models' || record.path === '/v1/models')) {
      sendJson(res, 200, { object: 'list', data: served.map((id) => ({ id, object: 'model', owned_by: 'deepseek' })) })
      return
    }
    const wire =
      record.path === '/chat/completions' || record.path === '/v1/chat/completions'
        ? 'chat'
        : record.path === '/anthropic/v1/messages' || record.path === '/anthropic/messages'
          ? 'anthropic'
          : undefined
    if (record.method !== 'POST' || !wire) {
      sendJson(res, 404, { error: { message: `The mock model has no ${record.method} ${record.path}.`, type: 'not_found' } })
      return
    }
    record.wire = wire
    const body = record.body
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      sendJson(res, 400, { error: { message: 'The request body is not a JSON object.', type: 'invalid_request_error' } })
      return
    }
    const request = body as Record<string, unknown>
    const prompt = serializedPrompt(request)
    const refusal = refusalFor(wire, request, Math.ceil(Buffer.byteLength(prompt, 'utf8') / 4), served)
    if (refusal) {
      // DeepSeek's own refusal, before the script is consulted: a scripted answer is not used up by a bad request.
      record.refused = refusal.message
      sendJson(res, refusal.status, { error: { message: refusal.message, type: refusal.type, param: null, code: refusal.type } })
      return
    }
    const { promptTokens, hitTokens } = cache.lookup(prompt)
    record.promptTokens = promptTokens
    record.cacheHitTokens = hitTokens
    const { response, exhausted } = script.take(lastUserText(request.messages), systemText(request))
    if (exhausted) record.exhausted = true

    if (response.delayMs) await sleep(response.delayMs)
    if (res.destroyed) return
    record.firstByteAt = performance.now()
    if (response.error) {
      const { status, body: errorBody, headers } = response.error
      const payload = errorBody === undefined ? { error: { message: `mock error ${status}`, type: 'mock_error' } } : errorBody
      res.writeHead(status, { 'content-type': typeof payload === 'string' ? 'text/plain' : 'application/json', ...headers })
      res.end(typeof payload === 'string' ? payload : JSON.stringify(payload))
      return
    }
    if (response.raw !== undefined) {
      await sendFrames(res, [response.raw], response.chunkDelayMs ?? 0)
      return
    }
    const model = typeof request.model === 'string' ? request.model : 'unknown'
    const plan = planResponse(response, { index: record.index, model, promptTokens, hitTokens })
    cache.answered(prompt, answerAsSentBack(wire, plan, (request.thinking as { type?: unknown } | undefined)?.type !== 'disabled'))
    if (request.stream !== true) {
      sendJson(res, 200, wire === 'chat' ? chatCompletion(plan) : anthropicMessage(plan))
      return
    }
    let frames = wire === 'chat' ? chatFrames(plan) : anthropicFrames(plan)
    if (response.cut === true) frames = frames.slice(0, -1)
    else if (typeof response.cut === 'number') frames = frames.slice(0, Math.max(0, response.cut))
    await sendFrames(res, frames, response.chunkDelayMs ?? 0)
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address

  return {
    url: `http://${host}:${address.port}`,
    requests,
    push: (...responses) => script.push(...responses),
    get connections() {
      return sockets.size
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** Writes an event stream, pausing between frames when asked; stops quietly once the client has gone. */
async function sendFrames(res: ServerResponse, frames: string[], chunkDelayMs: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  if (chunkDelayMs <= 0) {
    res.end(frames.join(''))
    return
  }
  for (const frame of frames) {
    if (res.destroyed) return
    res.write(frame)
    await sleep(chunkDelayMs)
  }
  if (!res.destroyed) res.end()
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(value))
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function parseBody(text: string): unknown {
  if (!text) return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function publicHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || SECRET_HEADERS.has(name)) continue
    out[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}

/** `<system-reminder>` blocks: producer context (runtime facts, workspace instructions), not what a person wrote. */
const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g

/**
 * The text a script's `match` is tested against: the newest user message that has text besides `<system-reminder>`
 * blocks, on either wire (a string content, or its text parts), whole. Messages made only of tool results or only of
 * reminders are skipped, so the prompt of a session's first request matches even though the runtime-context reminder
 * follows it as a message of its own.
 */
export function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return ''
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as { role?: unknown; content?: unknown } | null
    if (!message || message.role !== 'user') continue
    let text: string
    if (typeof message.content === 'string') text = message.content
    else if (Array.isArray(message.content)) {
      text = message.content
        .filter((p): p is { type: 'text'; text: string } => !!p && p.type === 'text' && typeof p.text === 'string')
        .map((p) => p.text)
        .join('\n\n')
    } else continue
    if (text.replace(REMINDER, '').trim()) return text
  }
  return ''
}

/** The system prompt's text on either wire: the chat wire's leading system message, the Anthropic wire's `system`. */
export function systemText(request: Record<string, unknown>): string {
  const textOf = (content: unknown): string =>
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((p: { text?: unknown } | null) => (typeof p?.text === 'string' ? p.text : '')).join('\n')
        : ''
  if (request.system !== undefined) return textOf(request.system)
  const first = Array.isArray(request.messages) ? (request.messages[0] as { role?: unknown; content?: unknown } | undefined) : undefined
  return first?.role === 'system' ? textOf(first.content) : ''
}

/** The answer as a client following DeepSeek's rules sends it back next time: the end-of-output cache unit. */
function answerAsSentBack(wire: 'chat' | 'anthropic', plan: ResponsePlan, thinking: boolean): unknown {
  const reasoned = plan.reasoning !== '' || (thinking && plan.calls.length > 0)
  if (wire === 'chat') {
    return {
      role: 'assistant',
      content: plan.text,
      ...(reasoned ? { reasoning_content: plan.reasoning } : {}),
      ...(plan.calls.length
        ? { tool_calls: plan.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
        : {}),
    }
  }
  const content: unknown[] = []
  if (reasoned) content.push({ type: 'thinking', thinking: plan.reasoning })
  if (plan.text) content.push({ type: 'text', text: plan.text })
  for (const c of plan.calls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: parsedInput(c.arguments) })
  return { role: 'assistant', content }
}

function parsedInput(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text)
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {}
  } catch {
    return {}
  }
}
