import { createHash, type Hash } from 'node:crypto'

/**
 * A request body as the bytes that go on the wire: `chunks` in order are the whole body, `sha256` is the hex digest of
 * exactly those bytes and `bytes` their count. The chunks are never changed after they are handed out.
 */
export interface BodyBytes {
  chunks: readonly Uint8Array[]
  sha256: string
  bytes: number
}

/** The body as one string or as its byte chunks: what an adapter's `stream` sends. */
export type RequestBody = string | readonly Uint8Array[]

/** A whole body encoded at once: O(body) to encode and hash. */
export function wholeBytes(body: string): BodyBytes {
  const buffer = Buffer.from(body, 'utf8')
  return { chunks: [buffer], sha256: createHash('sha256').update(buffer).digest('hex'), bytes: buffer.length }
}

/**
 * UTF-8 bytes that only grow at the end, with a SHA-256 over them kept up to date, so a body that is this prefix plus
 * a short tail costs O(new text + tail) to encode and hash, not O(body): `hash.copy()` forks the running digest.
 * Bytes `[0, length)` never change once written — a bigger buffer is a new one, and slices handed out earlier keep
 * the old one — so a body handed out stays exactly what it was. Growth doubles the buffer: amortized O(1) per byte.
 */
export class GrowingBytes {
  private buffer = Buffer.allocUnsafe(64 * 1024)
  private length = 0
  private readonly hash: Hash = createHash('sha256')

  append(text: string): void {
    const size = Buffer.byteLength(text, 'utf8')
    if (this.length + size > this.buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + size))
      this.buffer.copy(bigger, 0, 0, this.length)
      this.buffer = bigger
    }
    this.buffer.write(text, this.length, size, 'utf8')
    this.hash.update(this.buffer.subarray(this.length, this.length + size))
    this.length += size
  }

  /** The body that is the bytes so far followed by `tail`; the prefix is shared, not copied. */
  withTail(tail: string): BodyBytes {
    const end = Buffer.from(tail, 'utf8')
    const sha256 = this.hash.copy().update(end).digest('hex')
    return { chunks: [this.buffer.subarray(0, this.length), end], sha256, bytes: this.length + end.length }
  }
}

/**
 * A body whose middle is a JSON array that a fold extends element by element (a wire's message list), kept as bytes
 * between requests: `prefix` (ending inside the array: `[` or its own first elements), then the elements folded so
 * far, then a `tail` written afresh per request. `push` adds one element's JSON: O(element) to encode and hash.
 * `encode` with the prefix of the last call costs O(tail); a new prefix starts the bytes again from `elements`, the
 * same elements as text — O(body), once per change of prefix (a new system prompt, model or, on the Anthropic wire,
 * `max_tokens`). Nothing is kept until the first `encode`, so a fold that only builds strings pays nothing here.
 */
export class ElementBytes {
  private kept: { prefix: string; bytes: GrowingBytes; empty: boolean } | undefined

  push(json: string): void {
    if (!this.kept) return
    this.kept.bytes.append(this.kept.empty ? json : `,${json}`)
    this.kept.empty = false
  }

  /** The body `prefix` + the elements (`elements` is their JSON joined by commas) + `tail`, as bytes. */
  encode(prefix: string, elements: string, tail: string): BodyBytes {
    if (this.kept?.prefix !== prefix) {
      const bytes = new GrowingBytes()
      const open = prefix.endsWith('[')
      bytes.append(prefix)
      if (elements) bytes.append(open ? elements : `,${elements}`)
      this.kept = { prefix, bytes, empty: open && !elements }
    }
    return this.kept.bytes.withTail(tail)
  }
}
