import { describeCall, describeResult, type PermissionQuestion, type ToolLookup } from '../frontend/render/index.js'
import type { SessionEvent } from '../session/events.js'
import type { ShownQuestion, ShownToolEvent } from './api-types.js'

/** An event as the page gets it: tool calls and results carry their tool's display as `shown`. */
export type PageEvent = SessionEvent & { shown?: ShownToolEvent }

/**
 * Adds each tool call's and result's display to the events sent to one page. A result is shown by the tool of its
 * call: calls seen are remembered, and a result whose call came before what was sent is found in `history`.
 */
export class EventShower {
  private readonly names = new Map<string, string>()
  private scanned = 0

  constructor(
    private readonly tools: ToolLookup,
    private readonly cwd: string,
    private readonly history: () => readonly SessionEvent[],
  ) {}

  show(event: SessionEvent): PageEvent {
    if (event.type === 'tool/call') {
      const { name, callId } = event.data
      this.names.set(callId, name)
      const call = describeCall(this.tools(name), name, event.data.rewritten?.arguments ?? event.data.arguments, this.cwd)
      return { ...event, shown: { title: call.title, subject: call.subject, ...(call.command ? { command: true } : {}) } }
    }
    if (event.type === 'tool/result') {
      const name = this.nameOf(event.data.callId)
      const result = describeResult(name === undefined ? undefined : this.tools(name), event.data)
      return { ...event, shown: { summary: result.summary } }
    }
    return event
  }

  private nameOf(callId: string): string | undefined {
    const known = this.names.get(callId)
    if (known !== undefined) return known
    // Read the log once up to its current end; later calls arrive through `show`.
    const events = this.history()
    for (; this.scanned < events.length; this.scanned++) {
      const e = events[this.scanned]
      if (e.type === 'tool/call') this.names.set(e.data.callId, e.data.name)
    }
    return this.names.get(callId)
  }
}

/** A permission question as the page's `ShownQuestion`: the same facts, without the absolute path and file texts. */
export function pageQuestion(question: PermissionQuestion): ShownQuestion {
  const { change, ...rest } = question
  return { ...rest, ...(change ? { change: { shown: change.shown, ...(change.diff !== undefined ? { diff: change.diff } : {}) } } : {}) }
}
