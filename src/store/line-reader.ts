import type { FileHandle } from 'node:fs/promises'

/** Bytes read per system call at most: a 100 MB log takes about a hundred reads. */
const CHUNK_BYTES = 1 << 20
/** Bytes read per system call at least, so a small file costs one small buffer. */
const MIN_CHUNK_BYTES = 1 << 16

/**
 * Called for each complete line (ended by `\n`), with the line's bytes at `buffer[start, end)` (newline excluded) and
 * the file offset where the line starts. The buffer is reused after the call returns: copy what you keep.
 */
export type LineVisitor = (buffer: Buffer, start: number, end: number, offset: number) => void

/** Where a line scan stopped. */
export interface LineScanEnd {
  /** Offset just past the last newline: every byte before it belongs to a complete line. */
  completeTo: number
  /** The bytes after the last newline (a line not yet ended), possibly empty. */
  tail: Buffer
}

/**
 * Reads `file` from byte `from` to its end in chunks and calls `visit` for every complete line, so a log of any size
 * is never held in memory whole: only one chunk and one line spanning chunks at a time. `knownSize` (the file's size,
 * when the caller has just read it) only sizes the read buffer; bytes appended meanwhile are still read.
 */
export async function scanLines(file: FileHandle, from: number, visit: LineVisitor, knownSize?: number): Promise<LineScanEnd> {
  const remaining = (knownSize ?? (await file.stat()).size) - from
  const chunkBytes = Math.min(CHUNK_BYTES, Math.max(MIN_CHUNK_BYTES, remaining + 1))
  const chunk = Buffer.allocUnsafe(chunkBytes)
  let position = from
  /** Pieces of a line that started in an earlier chunk. */
  let carry: Buffer[] = []
  let carryStart = from
  for (;;) {
    const { bytesRead } = await file.read(chunk, 0, chunkBytes, position)
    if (bytesRead === 0) break
    let start = 0
    for (;;) {
      const newline = chunk.indexOf(10, start)
      if (newline === -1 || newline >= bytesRead) break
      if (carry.length) {
        carry.push(chunk.subarray(start, newline))
        const line = Buffer.concat(carry)
        carry = []
        visit(line, 0, line.length, carryStart)
      } else {
        visit(chunk, start, newline, position + start)
      }
      start = newline + 1
    }
    if (start < bytesRead) {
      if (!carry.length) carryStart = position + start
      carry.push(Buffer.from(chunk.subarray(start, bytesRead)))
    }
    position += bytesRead
  }
  const tail = carry.length ? Buffer.concat(carry) : Buffer.alloc(0)
  return { completeTo: position - tail.length, tail }
}
