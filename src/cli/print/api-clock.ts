import type { SessionEvent } from '../../session/events.js'

/**
 * Time spent waiting on the model (`duration_api_ms`), measured from the committed events as they arrive: from each
 * `request/sent` to the response (`assistant/message`), the retry it ended in (`llm/retry`) or the turn's end.
 */
export class ApiClock {
  private sentAt: number | null = null
  private waited = 0

  constructor(private readonly now: () => number = () => performance.now()) {}

  observe(event: SessionEvent): void {
    if (event.type === 'request/sent') {
      this.sentAt = this.now()
    } else if ((event.type === 'assistant/message' || event.type === 'llm/retry' || event.type === 'turn/end') && this.sentAt !== null) {
      this.waited += this.now() - this.sentAt
      this.sentAt = null
    }
  }

  /** Milliseconds waited since the last `take`, and starts counting again. */
  take(): number {
    const waited = this.waited
    this.waited = 0
    return waited
  }
}
