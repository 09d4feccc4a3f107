import { close, fstat, open, read } from 'node:fs'

/** Files larger than this are skipped by the built-in search (ripgrep has no such limit). */
export const MAX_FILE_BYTES = 16 * 1024 * 1024

/** Bytes looked at for a NUL to call a file binary, as ripgrep's default does. */
const BINARY_PROBE_BYTES = 8192

/** The first read of every file; most source files fit, so most files cost one open, one read and one close. */
const FIRST_READ_BYTES = 64 * 1024

/** What a file turned out to be: text worth searching, or why it is not searched. */
export type FileVerdict = { text: string } | { skipped: 'unreadable' | 'too-big' | 'binary' | 'no-literal' | 'no-match' }

/**
 * Reads files for the built-in search through libuv's callback API (the promise API costs about three times the CPU
 * per file: a FileHandle object and a promise for each of open, stat, read and close). Each concurrent read borrows
 * one buffer of FIRST_READ_BYTES from the pool, so a search of any size allocates a buffer only for a file larger than
 * that, and for the decoded text of a file that may match.
 */
export class FileReader {
  private readonly free: Buffer[] = []

  /**
   * @param literal bytes every match contains (`requiredLiteral`), or undefined; a file without them is `no-literal`
   *   and is never decoded.
   */
  constructor(private readonly literal: Buffer | undefined) {}

  /**
   * The file's text, unless it is unreadable, over MAX_FILE_BYTES, binary (a NUL in its first 8 KiB) or without the
   * literal. Never rejects.
   */
  async read(file: string): Promise<FileVerdict> {
    const buffer = this.free.pop() ?? Buffer.allocUnsafe(FIRST_READ_BYTES)
    try {
      const bytes = await readWhole(file, buffer)
      if (bytes === 'unreadable' || bytes === 'too-big') return { skipped: bytes }
      if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) return { skipped: 'binary' }
      if (this.literal && bytes.indexOf(this.literal) < 0) return { skipped: 'no-literal' }
      return { text: bytes.toString('utf8') }
    } finally {
      this.free.push(buffer)
    }
  }
}

/**
 * The file's bytes: a view of `buffer` when the file fits it, a new buffer when it does not. Unreadable covers every
 * error (permissions, a file gone since the walk): ripgrep skips those too.
 */
function readWhole(file: string, buffer: Buffer): Promise<Buffer | 'unreadable' | 'too-big'> {
  return new Promise((resolve) => {
    open(file, 'r', (error, fd) => {
      if (error) return resolve('unreadable')
      const done = (result: Buffer | 'unreadable' | 'too-big'): void => {
        close(fd, () => resolve(result)) // A failed close of a read-only descriptor loses nothing.
      }
      read(fd, buffer, 0, buffer.length, 0, (error, first) => {
        if (error) return done('unreadable')
        if (first < buffer.length) return done(buffer.subarray(0, first))
        fstat(fd, (error, stats) => {
          if (error) return done('unreadable')
          if (stats.size > MAX_FILE_BYTES) return done('too-big')
          readRest(fd, buffer, Math.max(stats.size, first + 1), done)
        })
      })
    })
  })
}

/** Reads on from the end of `head` until end of file, growing the buffer if the file grew since its stat. */
function readRest(fd: number, head: Buffer, sizeHint: number, done: (result: Buffer | 'unreadable' | 'too-big') => void): void {
  let bytes = Buffer.allocUnsafe(sizeHint)
  head.copy(bytes)
  let length = head.length
  const next = (): void => {
    if (length === bytes.length) {
      if (length > MAX_FILE_BYTES) return done('too-big')
      const grown = Buffer.allocUnsafe(Math.min(MAX_FILE_BYTES + 1, length * 2))
      bytes.copy(grown)
      bytes = grown
    }
    read(fd, bytes, length, bytes.length - length, length, (error, n) => {
      if (error) return done('unreadable')
      if (n === 0) return done(bytes.subarray(0, length))
      length += n
      next()
    })
  }
  next()
}
