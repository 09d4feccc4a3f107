import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SessionEvent, SessionHeader } from '../../src/session/events.js'
import { eventsOf, type EventOf } from '../support/events.js'

/** The system-prompt text that tells requests apart at the mock: the parent's, and a child's of one type. */
export const PARENT = 'You are Rein, a coding agent'
export const childOf = (type: string): string => `subagent of type "${type}"`

export interface StoredLog {
  header: SessionHeader
  events: SessionEvent[]
}

/** Every session log under a REIN_HOME, parsed. */
export function storedLogs(home: string): StoredLog[] {
  const root = join(home, 'sessions')
  const out: StoredLog[] = []
  for (const dir of readdirSync(root)) {
    for (const file of readdirSync(join(root, dir)).filter((f) => f.endsWith('.jsonl'))) {
      const lines = readFileSync(join(root, dir, file), 'utf8').split('\n').filter(Boolean)
      out.push({ header: JSON.parse(lines[0]), events: lines.slice(1).map((l) => JSON.parse(l)) })
    }
  }
  return out
}

/** The one log without a subagent link, and the children, in the order the parent started them. */
export function parentAndChildren(home: string): { parent: StoredLog; children: StoredLog[] } {
  const logs = storedLogs(home)
  const parents = logs.filter((l) => !l.header.subagent)
  if (parents.length !== 1) throw new Error(`expected one parent log, found ${parents.length}`)
  const parent = parents[0]
  // Children in the order the model called them: parallel children may start, and be listed, in either order.
  const order = parent.events.filter((e) => e.type === 'tool/call').map((e) => (e.data as { callId: string }).callId)
  const callOf = (log: StoredLog) => (log.header.subagent as { callId: string } | undefined)?.callId ?? ''
  const children = logs.filter((l) => l.header.subagent).sort((a, b) => order.indexOf(callOf(a)) - order.indexOf(callOf(b)))
  return { parent, children }
}

export const ofType = <T extends SessionEvent['type']>(log: StoredLog, type: T): EventOf<T>[] => eventsOf(log.events, type)
