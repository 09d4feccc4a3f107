/**
 * The last few kilobytes a server wrote to stderr, kept so a failure report can show why it died. Older output is
 * dropped as new output arrives; nothing is written to the terminal, which belongs to the UI.
 */
export class StderrTail {
  private buffer = ''

  constructor(
    private readonly maxChars = 4000,
    private readonly maxLines = 12,
  ) {}

  push(chunk: Buffer | string): void {
    this.buffer = (this.buffer + chunk.toString()).slice(-this.maxChars)
  }

  /** The last lines, trimmed; empty when the server wrote nothing. */
  text(): string {
    return this.buffer.trimEnd().split('\n').slice(-this.maxLines).join('\n')
  }
}
