/**
 * The mock's model of DeepSeek's context cache. The serialized prompt of a request is the canonical JSON (object keys
 * sorted at every level, no whitespace) of `[tools, system, messages]` as its body carries them (`system` is null on the
 * chat wire, where it is a message). Tokens are estimated as UTF-8 bytes / 4. A request's cache hit is the longest
 * common prefix with any earlier request's serialized prompt, in estimated tokens rounded down to DeepSeek's 64-token
 * cache unit.
 */

export const CACHE_UNIT_TOKENS = 64

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

export class PromptCache {
  private readonly seen: string[] = []

  /** Records `prompt` and returns its estimated size and cache hit, both in tokens. */
  lookup(prompt: string): { promptTokens: number; hitTokens: number } {
    let longest = 0
    for (const earlier of this.seen) longest = Math.max(longest, commonPrefixLength(earlier, prompt))
    this.seen.push(prompt)
    const prefixTokens = Math.floor(Buffer.byteLength(prompt.slice(0, longest), 'utf8') / 4)
    const promptTokens = estimateTokens(prompt)
    const hitTokens = Math.min(promptTokens, Math.floor(prefixTokens / CACHE_UNIT_TOKENS) * CACHE_UNIT_TOKENS)
    return { promptTokens, hitTokens }
  }
}

function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}
