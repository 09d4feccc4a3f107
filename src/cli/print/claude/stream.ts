import type { LiveEvent, TurnOutcome } from '../../../agent/types.js'
import type { ModelInfo } from '../../../llm/catalog.js'
import type { SessionEvent } from '../../../session/events.js'
import { ApiClock } from '../api-clock.js'
import { summarize, type PermissionDenial } from '../result.js'
import { ClaudeMessages } from './messages.js'
import { PartialMessages } from './partial.js'
import type { ClaudeLine } from './shapes.js'

export interface ClaudeStreamOptions {
  sessionId: string
  model: ModelInfo
  /** The model id requests go to now (the header's, which `--model` or settings chose). */
  modelId: string
  /** The session's log, read when a turn ends. */
  events: () => readonly SessionEvent[]
  /** The log length when the run began. */
  fromSeq: number
  /** Every call refused so far in this run, in order. */
  denials: readonly PermissionDenial[]
  /** `--include-partial-messages`. */
  partial: boolean
  write: (line: ClaudeLine) => void
  /** When the run began, on `performance.now()`'s clock. */
  started: number
  /** Each subagent session's model, for the result's `modelUsage`. */
  childModels?: ReadonlyMap<string, ModelInfo>
}

/**
 * Writes one run as Claude Code's stream-json (after the init line): the messages of every committed event, the
 * partial stream when asked, and a `result` after each turn's `turn/end`. A turn whose end could not be written
 * still gets its result from `finish`.
 */
export class ClaudeStream {
  private readonly messages: ClaudeMessages
  private readonly partial: PartialMessages
  /** The open turn: where it began in the log and on the clock. */
  private turn: { fromSeq: number; started: number } | null = null
  private readonly api = new ApiClock()
  private denialsReported = 0
  private turnsSeen = 0

  constructor(private readonly options: ClaudeStreamOptions) {
    this.messages = new ClaudeMessages(options.sessionId, options.modelId)
    this.partial = new PartialMessages(options.sessionId, () => this.messages.currentModel)
  }

  live(event: LiveEvent): void {
    switch (event.type) {
      case 'text-delta':
      case 'reasoning-delta':
      case 'tool-call-delta':
        if (this.options.partial) this.partial.delta(event).forEach(this.options.write)
        return
      case 'event':
        this.committed(event.event)
        return
      default:
        return
    }
  }

  /** Prints what is still held, and the result of a turn whose `turn/end` never came, with `outcome`. */
  finish(outcome: TurnOutcome | undefined): void {
    this.print(this.messages.finish())
    if (this.turn) this.result(outcome)
  }

  private committed(event: SessionEvent): void {
    if (event.type === 'turn/start') {
      this.api.take()
      // The first turn's time includes opening the session, as a one-shot run's wall time does.
      this.turn = { fromSeq: event.seq, started: this.turnsSeen++ === 0 ? this.options.started : performance.now() }
    }
    this.api.observe(event)
    // A failed request's partial message ends before the retry line; at a turn's end, after its held response.
    if (event.type === 'llm/retry') this.abandonPartial()
    this.print(this.messages.push(event))
    if (event.type === 'turn/end') {
      this.abandonPartial()
      this.result(undefined)
    }
  }

  private abandonPartial(): void {
    if (this.options.partial) this.partial.abandon().forEach(this.options.write)
  }

  private print(lines: ClaudeLine[]): void {
    for (const line of lines) {
      if (line.type === 'assistant' && this.options.partial) {
        this.partial.close(line.message.id, line.message.stop_reason, line.message.usage).forEach(this.options.write)
      }
      this.options.write(line)
    }
  }

  private result(outcome: TurnOutcome | undefined): void {
    const turn = this.turn ?? { fromSeq: this.options.fromSeq, started: this.options.started }
    this.turn = null
    const denials = this.options.denials.slice(this.denialsReported)
    this.denialsReported = this.options.denials.length
    this.options.write(
      summarize(this.options.events(), turn.fromSeq, this.options.sessionId, outcome, this.options.model, performance.now() - turn.started, denials, {
        apiMs: this.api.take(),
        runFromSeq: this.options.fromSeq,
        childModels: this.options.childModels,
      }),
    )
  }
}
