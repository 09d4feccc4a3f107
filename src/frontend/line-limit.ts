/** The default cap on one protocol line (RPC command, ACP message): 64 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024

/** `REIN_MAX_LINE_BYTES` (a whole number of bytes) when set, else the default. */
export function maxLineBytes(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.REIN_MAX_LINE_BYTES)
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_MAX_LINE_BYTES
}

/** One piece of input: a complete line (without its newline), or the size of a line dropped for being too long. */
export type LinePiece = { line: Buffer } | { tooLong: number }

/**
 * Splits a byte stream into newline-terminated lines while holding at most `limit` bytes of any one line: a longer
 * line is dropped as it arrives and reported once, with its length, when its newline comes (or the input ends), so
 * a huge line costs no more memory than the limit.
 */
export class LineLimiter {
  private parts: Buffer[] = []
  private held = 0
  /** Bytes of the current line when it is being dropped, else -1. */
  private dropping = -1

  constructor(readonly limit: number) {}

  push(chunk: Buffer): LinePiece[] {
    const out: LinePiece[] = []
    let start = 0
    for (;;) {
      const nl = chunk.indexOf(10, start)
      const end = nl === -1 ? chunk.length : nl
      this.take(chunk.subarray(start, end))
      if (nl === -1) return out
      out.push(this.finish())
      start = nl + 1
    }
  }

  /** The last line when the input ends without a newline. */
  end(): LinePiece[] {
    return this.held > 0 || this.dropping > 0 ? [this.finish()] : []
  }

  private take(bytes: Buffer): void {
    if (!bytes.length) return
    if (this.dropping >= 0) {
      this.dropping += bytes.length
      return
    }
    if (this.held + bytes.length > this.limit) {
      this.dropping = this.held + bytes.length
      this.parts = []
      this.held = 0
      return
    }
    this.parts.push(Buffer.from(bytes))
    this.held += bytes.length
  }

  private finish(): LinePiece {
    const piece: LinePiece = this.dropping >= 0 ? { tooLong: this.dropping } : { line: Buffer.concat(this.parts) }
    this.parts = []
    this.held = 0
    this.dropping = -1
    return piece
  }
}

/** The sentence a client gets for a dropped line. */
export function tooLongMessage(bytes: number, limit: number): string {
  return `That line is ${bytes} bytes, over the ${limit}-byte limit, and was ignored; send smaller messages or raise REIN_MAX_LINE_BYTES.`
}
