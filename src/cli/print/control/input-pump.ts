import type { InputBlock } from '../../../llm/messages.js'
import { inputLines } from '../stream-input.js'
import type { ControlChannel } from './channel.js'

/** What the pump hands on in order: a user message, or the end of the input (`error` when reading failed). */
type Item = { content: InputBlock[] } | { end: true; error?: Error }

/**
 * Reads stream-json input from the moment the process starts, so control requests are answered while the agent is
 * still opening (an SDK MCP server's handshake runs through them) and while a turn runs. Control lines go to the
 * channel at once; user messages wait in order until `messages()` takes them; unusable lines are reported and skipped.
 */
export class InputPump {
  private readonly items: Item[] = []
  private wake?: () => void
  /** How many lines that are not blank have been handled so far (the one being handled not counted). */
  handled = 0
  private firstSeen!: () => void
  /** Settles when the first line that is not blank has been handled, or the input ended without one. */
  readonly first: Promise<void> = new Promise((resolve) => (this.firstSeen = resolve))

  constructor(
    input: AsyncIterable<Buffer | string>,
    limit: number,
    private readonly channel: ControlChannel,
    private readonly report: (message: string) => void,
    private readonly write: (line: unknown) => void,
  ) {
    void this.pump(input, limit)
  }

  /** The user messages, in order, until the input ends; rejects with the read failure if reading failed. */
  async *messages(): AsyncGenerator<{ content: InputBlock[] }> {
    for (;;) {
      const item = this.items.shift()
      if (!item) {
        await new Promise<void>((resolve) => (this.wake = resolve))
        continue
      }
      if ('content' in item) yield item
      else if (item.error) throw item.error
      else return
    }
  }

  private push(item: Item): void {
    this.items.push(item)
    this.wake?.()
    this.wake = undefined
  }

  private async pump(input: AsyncIterable<Buffer | string>, limit: number): Promise<void> {
    try {
      for await (const line of inputLines(input, limit)) {
        if ('blank' in line) continue
        if ('control' in line) this.channel.receive(line.control)
        else if ('content' in line) this.push(line)
        else {
          this.report(line.problem)
          // A request too malformed to handle is still owed its answer, or the SDK would wait for it forever.
          if (line.requestId) this.write({ type: 'control_response', response: { subtype: 'error', request_id: line.requestId, error: line.problem } })
        }
        // A first `initialize` has recorded what it registered by now: its handler runs synchronously up to its wait.
        if (this.handled++ === 0) this.firstSeen()
      }
      this.push({ end: true })
    } catch (error) {
      this.push({ end: true, error: error instanceof Error ? error : new Error(String(error)) })
    } finally {
      this.channel.close()
      this.firstSeen()
    }
  }
}
