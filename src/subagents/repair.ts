import type { ModelOverride } from '../llm/catalog.js'
import type { AnyEvent, SessionEvent } from '../session/events.js'
import type { PendingEvent } from '../session/repair.js'
import { Session } from '../session/session.js'
import type { SessionStore } from '../store/store.js'
import { summarizeChild, type ChildSummary } from './child-log.js'

/**
 * Crash repair across a parent and its children, as `Session.load`'s `amendRepair`. For every `task` call that
 * repair closes and whose `subagent/start` is in the parent's log, the child's log is loaded (which repairs it too)
 * and the synthetic result says what it holds: the child's last answer if its turn completed, otherwise that the
 * outcome is unknown (with its last message, if any). A missing `subagent/end` is appended before the result, with
 * outcome `unknown` unless the child completed. A child that cannot be loaded is named in the result.
 */
export function repairAcrossChildren(store: SessionStore, overrides: Record<string, ModelOverride> = {}) {
  return async (events: readonly SessionEvent[], repairs: PendingEvent[]): Promise<PendingEvent[]> => {
    const started = new Map<string, string>()
    const ended = new Set<string>()
    for (const stored of events) {
      const event = stored as AnyEvent
      if (event.type === 'subagent/start') started.set(event.data.callId, event.data.child)
      else if (event.type === 'subagent/end') ended.add(event.data.callId)
    }
    const out: PendingEvent[] = []
    for (const repair of repairs) {
      const child = repair.type === 'tool/result' ? started.get(repair.data.callId) : undefined
      if (repair.type !== 'tool/result' || child === undefined) {
        out.push(repair)
        continue
      }
      const read = await readChild(store, child, overrides)
      if ('failure' in read) {
        out.push(withText(repair, `The outcome of this subagent is unknown: the session stopped while it ran, and its log (session ${child}) could not be read: ${read.failure}`, 'outcome-unknown'))
        continue
      }
      const summary = read.summary
      const completed = summary.outcome === 'completed'
      if (!ended.has(repair.data.callId)) {
        out.push({
          type: 'subagent/end',
          data: { callId: repair.data.callId, child, outcome: completed ? 'completed' : 'unknown', usage: summary.usage, cost: summary.cost },
        })
      }
      if (completed) {
        out.push({
          type: 'tool/result',
          data: { ...repair.data, content: [{ type: 'text', text: summary.answer ?? '(The subagent finished without an answer.)' }], isError: false, error: { code: 'recovered', message: `The subagent (session ${child}) had finished; its answer was recovered from its log after the session stopped.` } },
        })
      } else {
        const last = summary.answer ? ` Its last message:\n${summary.answer}` : ''
        out.push(withText(repair, `The outcome of this subagent is unknown: the session stopped (crash or kill) while it ran, and its log (session ${child}) ends without a finished answer. Check for side effects before running it again.${last}`, 'outcome-unknown'))
      }
    }
    return out
  }
}

async function readChild(store: SessionStore, id: string, overrides: Record<string, ModelOverride>): Promise<{ summary: ChildSummary } | { failure: string }> {
  try {
    const child = await Session.load(store, id)
    try {
      return { summary: summarizeChild(child.events, overrides) }
    } finally {
      await child.close()
    }
  } catch (error) {
    return { failure: error instanceof Error ? error.message : String(error) }
  }
}

function withText(repair: PendingEvent & { type: 'tool/result' }, text: string, code: string): PendingEvent {
  return { type: 'tool/result', data: { ...repair.data, content: [{ type: 'text', text }], isError: true, error: { code, message: text } } }
}
