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

/**
 * The units and the prompts seen so far, kept in one radix tree of characters, so a request costs O(its own length)
 * however long the session: finding the longest unit it starts with, and its common prefix with every earlier prompt
 * (the branch points along its path), are one walk down the tree. Each new edge holds its own copy of the new text, so
 * the tree holds each distinct byte of the session once, not every request whole.
 */
export class PromptCache {
  private readonly root = new TrieNode()

  /** Records `prompt` and returns its estimated size and cache hit, both in tokens. */
  lookup(prompt: string): { promptTokens: number; hitTokens: number } {
    const { longestUnit, commonWithSeen } = this.walk(prompt)
    const promptTokens = estimateTokens(prompt)
    const hitTokens = Math.min(promptTokens, Math.floor(Buffer.byteLength(prompt.slice(0, longestUnit), 'utf8') / 4))

    const input = openPrompt(prompt)
    const stops = new Set(commonWithSeen.filter((d) => d > 0))
    stops.add(input.length)
    for (let at = INTERVAL_CHARS; at < input.length; at += INTERVAL_CHARS) stops.add(at)
    const path = this.insert(prompt, [...stops].sort((a, b) => a - b))
    for (const [node, depth] of path) {
      node.seenBelow = true
      if (stops.has(depth)) node.unit = true
    }
    path[path.length - 1][0].seenEnd = true
    return { promptTokens, hitTokens }
  }

  /** Persists the unit at the end of the model's output: `prompt` extended by `message` (a wire message object). */
  answered(prompt: string, message: unknown): void {
    const input = openPrompt(prompt)
    const unit = `${input}${input.endsWith('[') ? '' : ','}${canonicalJson(message)}`
    const path = this.insert(unit, [unit.length])
    path[path.length - 1][0].unit = true
  }

  /**
   * Read-only: the depth of the longest unit `text` starts with, and the length of its common prefix with each
   * earlier prompt (one depth per branch point where some earlier prompt leaves the path or ends).
   */
  private walk(text: string): { longestUnit: number; commonWithSeen: number[] } {
    let node = this.root
    let depth = 0
    let longestUnit = 0
    const commonWithSeen: number[] = []
    for (;;) {
      if (node.unit) longestUnit = depth
      if (depth === text.length) {
        if (node.seenBelow) commonWithSeen.push(depth)
        break
      }
      const next = node.edges.get(text.charCodeAt(depth))
      if (node.seenEnd) commonWithSeen.push(depth)
      else for (const edge of node.edges.values()) if (edge !== next && edge.to.seenBelow) { commonWithSeen.push(depth); break }
      if (!next) break
      const k = commonLength(next.label, text, depth, text.length)
      if (k < next.label.length) {
        if (next.to.seenBelow) commonWithSeen.push(depth + k)
        break
      }
      node = next.to
      depth += k
    }
    return { longestUnit, commonWithSeen }
  }

  /**
   * Makes `text` a path from the root, with a node at every depth in `stops` (ascending) and at its end; returns the
   * nodes along it with their depths.
   */
  private insert(text: string, stops: number[]): [TrieNode, number][] {
    let node = this.root
    let depth = 0
    let stop = 0
    const path: [TrieNode, number][] = [[node, 0]]
    while (depth < text.length) {
      while (stop < stops.length && stops[stop] <= depth) stop++
      const limit = stop < stops.length ? Math.min(stops[stop], text.length) : text.length
      const key = text.charCodeAt(depth)
      const edge = node.edges.get(key)
      if (!edge) {
        const to = new TrieNode()
        node.edges.set(key, { label: ownCopy(text.slice(depth, limit)), to })
        node = to
        depth = limit
      } else {
        const k = commonLength(edge.label, text, depth, limit)
        if (k < edge.label.length) {
          const middle = new TrieNode()
          middle.seenBelow = edge.to.seenBelow
          middle.edges.set(edge.label.charCodeAt(k), { label: edge.label.slice(k), to: edge.to })
          edge.label = edge.label.slice(0, k)
          edge.to = middle
        }
        node = edge.to
        depth += k
      }
      path.push([node, depth])
    }
    return path
  }
}

class TrieNode {
  readonly edges = new Map<number, { label: string; to: TrieNode }>()
  /** A cache prefix unit ends here. */
  unit = false
  /** An earlier prompt ends here. */
  seenEnd = false
  /** An earlier prompt ends here or below. */
  seenBelow = false
}

/** How many characters of `label` match `text` from `at`, comparing no further than `limit` in `text`. */
function commonLength(label: string, text: string, at: number, limit: number): number {
  const n = Math.min(label.length, limit - at)
  let i = 0
  while (i < n && label.charCodeAt(i) === text.charCodeAt(at + i)) i++
  return i
}

/** A flat copy, so an edge does not keep the whole request it was sliced from alive (V8 slices share their parent). */
function ownCopy(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le')
}
