import { createHash, randomBytes } from 'node:crypto'
import { open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { scanLines } from './line-reader.js'
import type { ReadEnd, ReadStart, RecordSink, SidecarAccess } from './store.js'

const NEWLINE = Buffer.from('\n')

/**
 * The JSONL store's resume sidecars: `<id>.jsonl.resume` beside each log, owner-only like the log. A sidecar is
 * replaced by writing a temporary file beside it and renaming it over; it is not fsynced, because it is derived: a
 * sidecar lost or torn by a crash fails its own digest and the next resume reads the whole log instead.
 */
export class JsonlSidecars implements SidecarAccess {
  constructor(
    private readonly logPath: (id: string) => Promise<string>,
    private readonly readLog: (id: string, sink: RecordSink, from: ReadStart) => Promise<ReadEnd>,
  ) {}

  async location(id: string): Promise<string> {
    return `${await this.logPath(id)}.resume`
  }

  async read(id: string): Promise<string | undefined> {
    try {
      return await readFile(await this.location(id), 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }

  async write(id: string, text: string): Promise<void> {
    const path = await this.location(id)
    const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`
    try {
      await writeFile(temporary, text, { mode: 0o600, flag: 'wx' })
      await rename(temporary, path)
    } catch (error) {
      await rm(temporary, { force: true })
      throw error
    }
  }

  async logSize(id: string): Promise<number> {
    return (await stat(await this.logPath(id))).size
  }

  async logBytes(id: string, start: number, end: number): Promise<Buffer> {
    const file = await open(await this.logPath(id), 'r')
    try {
      const buffer = Buffer.alloc(Math.max(0, end - start))
      let filled = 0
      while (filled < buffer.length) {
        const { bytesRead } = await file.read(buffer, filled, buffer.length - filled, start + filled)
        if (bytesRead === 0) break
        filled += bytesRead
      }
      return buffer.subarray(0, filled)
    } finally {
      await file.close()
    }
  }

  readFrom(id: string, from: ReadStart, sink: RecordSink): Promise<ReadEnd> {
    return this.readLog(id, sink, from)
  }

  async digestLines(id: string, from: number, count: number): Promise<{ end: number; sha256: string; last: Buffer } | undefined> {
    if (count === 0) return undefined
    const file = await open(await this.logPath(id), 'r')
    const hash = createHash('sha256')
    let seen = 0
    let end = from
    let last = Buffer.alloc(0)
    try {
      await scanLines(file, from, (buffer, start, stop, offset) => {
        if (seen === count) return
        seen++
        hash.update(buffer.subarray(start, stop))
        hash.update(NEWLINE)
        end = offset + (stop - start) + 1
        if (seen === count) last = Buffer.from(buffer.subarray(start, stop))
      })
    } finally {
      await file.close()
    }
    return seen === count ? { end, sha256: hash.digest('hex'), last } : undefined
  }
}
