import type { LiveEvent } from '../../../agent/types.js'
import { ClaudeMessages } from './messages.js'
import { PartialMessages } from './partial.js'
import type { ClaudeLine } from './shapes.js'

export interface ChildStreamOptions {
  /** The child's own session id: every line carries it, as Claude Code's subagent lines carry theirs. */
  sessionId: string
  /** The parent's `task` call that runs the child: every line's `parent_tool_use_id`. */
  callId: string
  /** The model the child's requests go to. */
  modelId: string
  /** `--include-partial-messages`. */
  partial: boolean
  write: (line: ClaudeLine) => void
}

/**
 * Writes one subagent's run into the parent's stream-json, with the same projection as the parent's own lines: its
 * prompt and context (`user`), its responses (`assistant`), its tool results (`user`) and, when asked, its
 * `stream_event` deltas. A child gets no `result` line (its answer reaches the parent as the `task` result) and no
 * `system` line, because Claude Code's system messages have no `parent_tool_use_id` to name the child by.
 */
export class ChildStream {
  private readonly messages: ClaudeMessages
  private readonly partial: PartialMessages

  constructor(private readonly options: ChildStreamOptions) {
    this.messages = new ClaudeMessages(options.sessionId, options.modelId, options.callId)
    this.partial = new PartialMessages(options.sessionId, () => this.messages.currentModel, options.callId)
  }

  live(event: LiveEvent): void {
    switch (event.type) {
      case 'text-delta':
      case 'reasoning-delta':
      case 'tool-call-delta':
        if (this.options.partial) this.partial.delta(event).forEach(this.options.write)
        return
      case 'event': {
        const type = event.event.type
        if (type === 'llm/retry') this.abandonPartial()
        this.print(this.messages.push(event.event))
        if (type === 'turn/end') this.abandonPartial()
        return
      }
      case 'idle':
        // Nothing follows a response the child's log could not close; print what is held.
        this.print(this.messages.finish())
        this.abandonPartial()
        return
      default:
        return
    }
  }

  private abandonPartial(): void {
    if (this.options.partial) this.partial.abandon().forEach(this.options.write)
  }

  private print(lines: ClaudeLine[]): void {
    for (const line of lines) {
      if (line.type === 'system') continue
      if (line.type === 'assistant' && this.options.partial) {
        this.partial.close(line.message.id, line.message.stop_reason, line.message.usage).forEach(this.options.write)
      }
      this.options.write(line)
    }
  }
}
