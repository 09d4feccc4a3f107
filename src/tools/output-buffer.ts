import { closeSync, openSync, writeSync } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'
import { spillPath } from './spill.js'
import type { ToolState } from './tool.js'

/** Bytes of a command's output the model sees: the tail. */
export const OUTPUT_TAIL_BYTES = 30 * 1024

/**
 * Collects a command's interleaved stdout and stderr in arrival order with bounded memory: everything while it fits
 * in the tail budget; past that, the whole output streams to a private spill file (mode 0600) and only the tail
 * stays in memory.
 */
export class OutputBuffer {
  private chunks: Buffer[] = []
  private held = 0
  private fd: number | undefined
  total = 0
  file: string | undefined

  constructor(
    private readonly state: ToolState,
    private readonly label: string,
    private readonly tailBytes = OUTPUT_TAIL_BYTES,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length
    if (this.fd === undefined && this.total > this.tailBytes) {
      this.file = spillPath(this.state, this.label)
      this.fd = openSync(this.file, 'w', 0o600)
      for (const held of this.chunks) writeSync(this.fd, held)
    }
    if (this.fd !== undefined) writeSync(this.fd, chunk)
    this.chunks.push(chunk)
    this.held += chunk.length
    while (this.chunks.length > 1 && this.held - this.chunks[0].length >= this.tailBytes) {
      this.held -= this.chunks.shift()!.length
    }
  }

  /** Closes the spill file, if one was opened. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  /** The last `tailBytes` bytes as text (starting at a whole character), and whether earlier output was dropped. */
  tail(): { text: string; cut: boolean } {
    let bytes = Buffer.concat(this.chunks)
    const cut = bytes.length > this.tailBytes
    if (cut) {
      bytes = bytes.subarray(bytes.length - this.tailBytes)
      let start = 0
      while (start < bytes.length && start < 4 && (bytes[start] & 0xc0) === 0x80) start++
      bytes = bytes.subarray(start)
    }
    return { text: new StringDecoder('utf8').end(bytes), cut: cut || this.total > this.held }
  }
}
