import type { InputBlock } from '../llm/messages.js'
import type { InboxVerb, JsonValue, SessionEvent, Source } from '../session/events.js'

/** One queued input. Its `id` becomes the id of the message it lands as, so a delivery is recognisable on resume. */
export interface InboxItem {
  id: string
  verb: InboxVerb
  content: InputBlock[]
  source: Source
  meta?: JsonValue
}

/**
 * The queue of inputs waiting for a step boundary. It only holds state; the agent logs every change
 * (`inbox/queued`, `inbox/dequeued`) so the queue can be rebuilt from the log after a restart.
 */
export class Inbox {
  private items: InboxItem[] = []

  /** Rebuilds the queue from a log: queued items that were neither dequeued nor delivered as a message. */
  static fromEvents(events: readonly SessionEvent[]): Inbox {
    const inbox = new Inbox()
    const done = new Set<string>()
    for (const e of events) {
      if (e.type === 'inbox/dequeued') done.add(e.data.id)
      else if (e.type === 'user/message' || e.type === 'context/message' || e.type === 'steering/message') {
        done.add(e.data.id)
      }
    }
    for (const e of events) {
      if (e.type !== 'inbox/queued') continue
      const d = e.data
      if (!done.has(d.id)) inbox.items.push({ id: d.id, verb: d.verb, content: d.content, source: d.source })
    }
    return inbox
  }

  get size(): number {
    return this.items.length
  }

  list(): readonly InboxItem[] {
    return this.items
  }

  push(item: InboxItem): void {
    this.items.push(item)
  }

  /** Whether something here should open a turn: injected context alone does not wake an idle agent. */
  hasWaking(): boolean {
    return this.items.some((i) => i.verb !== 'inject')
  }

  /**
   * Whether the running turn must take another step for what waits here: steering only. Injected context rides
   * along with whatever step comes next but never extends a turn; follow-ups wait for their own turn.
   */
  hasForNextStep(): boolean {
    return this.items.some((i) => i.verb === 'steer')
  }

  /**
   * Takes what enters the next step, in queue order. The first step of a turn takes one follow-up (the oldest);
   * every step takes all steering and all injected context. Follow-ups behind the first wait for their own turn.
   */
  claim(firstStep: boolean): InboxItem[] {
    const taken: InboxItem[] = []
    const kept: InboxItem[] = []
    let followUpTaken = false
    for (const item of this.items) {
      const take = item.verb === 'followUp' ? firstStep && !followUpTaken : true
      if (take) {
        if (item.verb === 'followUp') followUpTaken = true
        taken.push(item)
      } else kept.push(item)
    }
    this.items = kept
    return taken
  }

  /** Takes only the injected context, in queue order (context produced mid-step, after a compaction). */
  claimContext(): InboxItem[] {
    const taken = this.items.filter((i) => i.verb === 'inject')
    this.items = this.items.filter((i) => i.verb !== 'inject')
    return taken
  }

  /** Removes an item that was not delivered (taken back by a front end). */
  withdraw(id: string): InboxItem | undefined {
    const index = this.items.findIndex((i) => i.id === id)
    if (index < 0) return undefined
    return this.items.splice(index, 1)[0]
  }
}
