import { Worker } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import { FileReader, MAX_FILE_BYTES, type FileVerdict } from './grep-read.js'

/** Files sent to the worker in one message. */
const BATCH = 128

/** What the worker needs to rule files out by itself. */
interface WorkerSetup {
  maxFileBytes: number
  /** UTF-8 text every match contains, or null. */
  literal: string | null
  /** The whole-text pre-search (`source`, `flags`), or null when the pattern must be searched line by line. */
  anyMatch: { source: string; flags: string } | null
}

interface Batch {
  id: number
  files: string[]
}

/** Why the worker did not send a file's text, by index: the message carries the number. */
const SKIPPED = ['unreadable', 'too-big', 'binary', 'no-literal', 'no-match'] as const

/** Per file of a batch, in order: its text when it may match, or the index in SKIPPED of why it is not searched. */
interface BatchResult {
  id: number
  verdicts: (string | number)[]
}

/**
 * The worker's body: reads each file of a batch with synchronous calls (one thread, no hop through libuv's pool per
 * call: about a third of the CPU of the callback API per file) and rules out what it can — unreadable, too big,
 * binary, without the literal, no match in the whole text — so only files that may match come back, decoded.
 *
 * It runs from its own source text (`Function.prototype.toString`), so it must use nothing but its parameters.
 */
function serveReads(fs: typeof import('node:fs'), port: MessagePort, setup: WorkerSetup): void {
  const buffer = Buffer.allocUnsafe(64 * 1024)
  const literal = setup.literal === null ? undefined : Buffer.from(setup.literal, 'utf8')
  const anyMatch = setup.anyMatch === null ? undefined : new RegExp(setup.anyMatch.source, setup.anyMatch.flags)
  // Indexes in SKIPPED.
  const unreadable = 0
  const tooBig = 1
  const readWhole = (file: string): Buffer | number => {
    let fd: number
    try {
      fd = fs.openSync(file, 'r')
    } catch {
      return unreadable
    }
    try {
      const first = fs.readSync(fd, buffer, 0, buffer.length, 0)
      if (first < buffer.length) return buffer.subarray(0, first)
      const size = fs.fstatSync(fd).size
      if (size > setup.maxFileBytes) return tooBig
      let bytes = Buffer.allocUnsafe(Math.max(size, first + 1))
      buffer.copy(bytes)
      let length = first
      for (;;) {
        if (length === bytes.length) {
          if (length > setup.maxFileBytes) return tooBig
          const grown = Buffer.allocUnsafe(Math.min(setup.maxFileBytes + 1, length * 2))
          bytes.copy(grown)
          bytes = grown
        }
        const n = fs.readSync(fd, bytes, length, bytes.length - length, length)
        if (n === 0) return bytes.subarray(0, length)
        length += n
      }
    } catch {
      return unreadable // Gone or unreadable since the walk: ripgrep skips these too.
    } finally {
      fs.closeSync(fd)
    }
  }
  port.on('message', (batch: Batch) => {
    const verdicts: BatchResult['verdicts'] = batch.files.map((file) => {
      const bytes = readWhole(file)
      if (typeof bytes === 'number') return bytes
      if (bytes.subarray(0, 8192).includes(0)) return 2
      if (literal && bytes.indexOf(literal) < 0) return 3
      const text = bytes.toString('utf8')
      if (anyMatch && !anyMatch.test(text)) return 4
      return text
    })
    port.postMessage({ id: batch.id, verdicts } satisfies BatchResult)
  })
}

const SOURCE = `(${serveReads.toString()})(require('node:fs'), require('node:worker_threads').parentPort, require('node:worker_threads').workerData)`

/**
 * Reads files for the built-in search on a worker thread (the machine's second core), in batches of BATCH files sent
 * as they are queued. Answers the same verdicts as `FileReader`, plus `no-match`: the worker also runs the whole-text
 * pre-search, so only a file that may match is decoded and sent back. `close` ends the thread; a reader must be closed.
 */
export class WorkerReader {
  private readonly worker: Worker
  private readonly waiting = new Map<number, { files: string[]; resolvers: ((verdict: FileVerdict) => void)[] }>()
  private batch: Batch = { id: 0, files: [] }
  private pending: ((verdict: FileVerdict) => void)[] = []
  private flushQueued = false
  private failed = false
  private closed = false

  /** @param fallback reads what the worker cannot, should it fail to start or stop. */
  constructor(
    literal: string | undefined,
    anyMatch: RegExp | undefined,
    private readonly fallback: FileReader,
  ) {
    const setup: WorkerSetup = {
      maxFileBytes: MAX_FILE_BYTES,
      literal: literal ?? null,
      anyMatch: anyMatch ? { source: anyMatch.source, flags: anyMatch.flags } : null,
    }
    this.worker = new Worker(SOURCE, { eval: true, workerData: setup })
    this.worker.unref()
    this.worker.on('message', (result: BatchResult) => {
      const sent = this.waiting.get(result.id)
      this.waiting.delete(result.id)
      result.verdicts.forEach((verdict, i) => sent?.resolvers[i]?.(typeof verdict === 'string' ? { text: verdict } : { skipped: SKIPPED[verdict] }))
    })
    // Whatever stops the worker, its files are read on this thread instead: a search never loses a file to it.
    this.worker.on('error', () => this.fail())
    this.worker.on('exit', () => this.fail())
  }

  /** The file's verdict; never rejects. */
  read(file: string): Promise<FileVerdict> {
    if (this.failed) return this.fallback.read(file)
    return new Promise((resolve) => {
      this.batch.files.push(file)
      this.pending.push(resolve)
      if (this.batch.files.length >= BATCH) this.flush()
      else if (!this.flushQueued) {
        this.flushQueued = true
        setImmediate(() => this.flush())
      }
    })
  }

  /** Ends the thread; a file still unanswered then is `unreadable` (the search no longer wants it). */
  async close(): Promise<void> {
    this.closed = true
    await this.worker.terminate()
  }

  private flush(): void {
    this.flushQueued = false
    if (this.batch.files.length === 0 || this.failed) return
    this.waiting.set(this.batch.id, { files: this.batch.files, resolvers: this.pending })
    this.worker.postMessage(this.batch)
    this.batch = { id: this.batch.id + 1, files: [] }
    this.pending = []
  }

  private fail(): void {
    if (this.failed) return
    this.failed = true
    const unanswered = [...this.waiting.values(), { files: this.batch.files, resolvers: this.pending }]
    this.waiting.clear()
    this.batch = { id: this.batch.id + 1, files: [] }
    this.pending = []
    for (const { files, resolvers } of unanswered) {
      files.forEach((file, i) => {
        if (this.closed) resolvers[i]?.({ skipped: 'unreadable' })
        else void this.fallback.read(file).then(resolvers[i])
      })
    }
  }
}
