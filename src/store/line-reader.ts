import { fstatSync, readSync } from 'node:fs'
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
 * Splits a stream of chunks into lines: `push` each chunk as it is read, then `end`. Only one chunk and one line
 * spanning chunks are held at a time. Shared by the asynchronous and synchronous scans below.
 */
class LineSplitter {
  /** Pieces of a line that started in an earlier chunk. */
  private carry: Buffer[] = []
  private carryStart: number
  private position: number

  constructor(
    from: number,
    private readonly visit: LineVisitor,
  ) {
    this.position = from
    this.carryStart = from
  }

  push(chunk: Buffer, bytesRead: number): void {
    let start = 0
    for (;;) {
      const newline = chunk.indexOf(10, start)
      if (newline === -1 || newline >= bytesRead) break
      if (this.carry.length) {
        this.carry.push(chunk.subarray(start, newline))
        const line = Buffer.concat(this.carry)
        this.carry = []
        this.visit(line, 0, line.length, this.carryStart)
      } else {
        this.visit(chunk, start, newline, this.position + start)
      }
      start = newline + 1
    }
    if (start < bytesRead) {
      if (!this.carry.length) this.carryStart = this.position + start
      this.carry.push(Buffer.from(chunk.subarray(start, bytesRead)))
    }
    this.position += bytesRead
  }

  end(): LineScanEnd {
    const tail = this.carry.length ? Buffer.concat(this.carry) : Buffer.alloc(0)
    return { completeTo: this.position - tail.length, tail }
  }
}

function chunkFor(size: number, from: number): Buffer {
  return Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(MIN_CHUNK_BYTES, size - from + 1)))
}

/**
 * Reads `file` from byte `from` to its end in chunks and calls `visit` for every complete line, so a log of any size
 * is never held in memory whole: only one chunk and one line spanning chunks at a time. `knownSize` (the file's size,
 * when the caller has just read it) only sizes the read buffer; bytes appended meanwhile are still read.
 */
export async function scanLines(file: FileHandle, from: number, visit: LineVisitor, knownSize?: number): Promise<LineScanEnd> {
  const chunk = chunkFor(knownSize ?? (await file.stat()).size, from)
  const lines = new LineSplitter(from, visit)
  for (let position = from; ; ) {
    const { bytesRead } = await file.read(chunk, 0, chunk.length, position)
    if (bytesRead === 0) return lines.end()
    lines.push(chunk, bytesRead)
    position += bytesRead
  }
}

/**
 * `scanLines` over a plain descriptor, read synchronously. For many small files (a listing) the thread-pool round
 * trips of asynchronous reads cost more than the reads themselves.
 */
export function scanLinesSync(fd: number, from: number, visit: LineVisitor, knownSize?: number): LineScanEnd {
  const chunk = chunkFor(knownSize ?? fstatSync(fd).size, from)
  const lines = new LineSplitter(from, visit)
  for (let position = from; ; ) {
    const bytesRead = readSync(fd, chunk, 0, chunk.length, position)
    if (bytesRead === 0) return lines.end()
    lines.push(chunk, bytesRead)
    position += bytesRead
  }
}
