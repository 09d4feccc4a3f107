/**
 * The mock model's script format. A script is a JSON array of responses; each request takes the first remaining
 * response whose `match` fits (or that has none), so a plain list answers requests in order.
 */

/** A tool call the mock makes. `arguments` as an object is sent as its JSON text; a string is sent exactly. */
export interface MockToolCall {
  name: string
  arguments?: Record<string, unknown> | string
  /** Default: `call_<request>_<n>`, unique within one server. */
  id?: string
}

/** An HTTP error instead of an answer. An object body is sent as JSON. */
export interface MockError {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

export interface MockResponse {
  /**
   * Take this response only when the last user message's text fits: a substring, or `/pattern/flags` as a regular
   * expression. Responses that do not fit stay in the script for later requests.
   */
  match?: string | RegExp
  /**
   * Take this response only when the system prompt fits (same forms as `match`): tells a subagent's requests from
   * its parent's, which share a server.
   */
  system?: string | RegExp
  text?: string
  reasoning?: string
  toolCalls?: MockToolCall[]
  /** `length` reports the answer as cut by the output cap. Default `stop` (`tool_calls` when calls are present). */
  finish?: 'stop' | 'length'
  error?: MockError
  /** End the stream early: `true` before the end marker (`[DONE]`, `message_stop`), a number after that many events. */
  cut?: boolean | number
  /** Exact bytes to send as a 200 `text/event-stream` body, for malformed-stream fixtures. */
  raw?: string
  /** Milliseconds before the first byte (the status line). */
  delayMs?: number
  /** Milliseconds between stream events. */
  chunkDelayMs?: number
  /** Characters per streamed delta. Default 16. */
  chunkSize?: number
  /** Chat wire: where usage goes. `finish` on the finish chunk (default), `trailing` on a chunk of its own, `none` omitted. */
  usage?: 'finish' | 'trailing' | 'none'
  /** Keep this response in the script after it is used, so it answers every request it matches. */
  repeat?: boolean
}

/** Said when no scripted response is left for a request: a normal answer, so a test fails on content, not a crash. */
export const EXHAUSTED_TEXT = 'The mock model has no scripted response left for this request.'

/** The remaining responses of a script. */
export class Script {
  private readonly entries: MockResponse[]

  constructor(entries: readonly MockResponse[] = []) {
    this.entries = [...entries]
  }

  push(...responses: MockResponse[]): void {
    this.entries.push(...responses)
  }

  get remaining(): number {
    return this.entries.length
  }

  /** The response for a request whose last user message reads `userText`, or the exhausted answer. */
  take(userText: string, systemText = ''): { response: MockResponse; exhausted: boolean } {
    const index = this.entries.findIndex((entry) => fits(entry.match, userText) && fits(entry.system, systemText))
    if (index < 0) return { response: { text: EXHAUSTED_TEXT }, exhausted: true }
    const response = this.entries[index]
    if (!response.repeat) this.entries.splice(index, 1)
    return { response, exhausted: false }
  }
}

function fits(match: string | RegExp | undefined, text: string): boolean {
  if (match === undefined) return true
  if (match instanceof RegExp) return match.test(text)
  const regex = /^\/(.*)\/([a-z]*)$/s.exec(match)
  return regex ? new RegExp(regex[1], regex[2]).test(text) : text.includes(match)
}

/** Checks a parsed script file and names the first problem, so `rein mock-model` can say what to fix. */
export function parseScript(value: unknown, file: string): MockResponse[] {
  if (!Array.isArray(value)) throw new Error(`The script ${file} must be a JSON array of responses.`)
  value.forEach((entry, i) => {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new Error(`Response ${i} in ${file} must be an object with text, reasoning, toolCalls or error.`)
    }
    const calls = (entry as MockResponse).toolCalls
    if (calls !== undefined && (!Array.isArray(calls) || calls.some((c) => !c || typeof c.name !== 'string'))) {
      throw new Error(`Response ${i} in ${file} has toolCalls that are not a list of {name, arguments}.`)
    }
    const error = (entry as MockResponse).error
    if (error !== undefined && (typeof error !== 'object' || typeof error.status !== 'number')) {
      throw new Error(`Response ${i} in ${file} has an error without a numeric status.`)
    }
  })
  return value as MockResponse[]
}
