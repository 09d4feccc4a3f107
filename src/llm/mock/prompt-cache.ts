/**
 * The mock's model of DeepSeek's context cache (guides/kv_cache). The serialized prompt of a request is the canonical
 * JSON (object keys sorted at every level, no whitespace) of `[tools, system, messages]` as its body carries them
 * (`system` is null on the chat wire, where it is a message). Tokens are estimated as UTF-8 bytes / 4.
 *
 * DeepSeek stores *cache prefix units* and a request hits only a unit it matches whole — never an arbitrary common
 * prefix. Units are persisted, as the Context Caching guide lists them:
 * 1. at the end of each request's input (the whole serialized prompt up to its last message) and at the end of the
 *    model's output (that prompt followed by the answer as the next request would carry it back);
 * 2. as the common prefix of two requests, once the second has been seen (it serves later requests, not the second);
 * 3. every `INTERVAL_TOKENS` tokens along a long input, so a long prefix can hit before its end is reached.
 * The hit is the longest unit that is a prefix of the request, in tokens rounded down. The interval is the mock's
 * choice: DeepSeek does not publish its figure.
 */

export const INTERVAL_TOKENS = 4_096
const INTERVAL_CHARS = INTERVAL_TOKENS * 4

export function serializedPrompt(body: Record<string, unknown>): string {
  return canonicalJson([body.tools ?? [], body.system ?? null, body.messages ?? []])
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4)
}

/** The prompt without its closing `]]`: a prefix of every later prompt that extends its message list. */
function openPrompt(prompt: string): string {
  return prompt.endsWith(']]') ? prompt.slice(0, -2) : prompt
}

export class PromptCache {
  private readonly units = new Set<string>()
  private readonly seen: string[] = []

  /** Records `prompt` and returns its estimated size and cache hit, both in tokens. */
  lookup(prompt: string): { promptTokens: number; hitTokens: number } {
    let best = ''
    for (const unit of this.units) if (unit.length > best.length && prompt.startsWith(unit)) best = unit
    const promptTokens = estimateTokens(prompt)
    const hitTokens = Math.min(promptTokens, Math.floor(Buffer.byteLength(best, 'utf8') / 4))

    for (const earlier of this.seen) {
      const common = commonPrefixLength(earlier, prompt)
      if (common > 0) this.units.add(prompt.slice(0, common))
    }
    this.seen.push(prompt)
    const input = openPrompt(prompt)
    this.units.add(input)
    for (let at = INTERVAL_CHARS; at < input.length; at += INTERVAL_CHARS) this.units.add(input.slice(0, at))
    return { promptTokens, hitTokens }
  }

  /** Persists the unit at the end of the model's output: `prompt` extended by `message` (a wire message object). */
  answered(prompt: string, message: unknown): void {
    const input = openPrompt(prompt)
    this.units.add(`${input}${input.endsWith('[') ? '' : ','}${canonicalJson(message)}`)
  }
}

function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}
