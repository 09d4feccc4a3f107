import { randomUUID } from 'node:crypto'
import type { OpenedAgent } from '../agent/open.js'
import type { LiveEvent, PermissionAnswer, PermissionRequest } from '../agent/types.js'

/** A permission request waiting for any open page to answer it. */
export interface PendingAsk {
  id: string
  request: PermissionRequest
  answer: (answer: PermissionAnswer) => void
}

/** What the session's pages are told, one Server-Sent Event each. */
export type StreamMessage =
  | { kind: 'live'; live: LiveEvent }
  | { kind: 'state'; state: LiveState }
  | { kind: 'ask'; id: string; request: PermissionRequest }
  | { kind: 'ask-settled'; id: string }

/** The session's controls as the page shows them. */
export interface LiveState {
  hosted: true
  busy: boolean
  model: string
  effort: string
  permissionMode: string
  queued: { id: string; verb: string }[]
  asks: { id: string; request: PermissionRequest }[]
  events: number
  /** Problems found while opening (hooks, servers, an untrusted workspace's ignored settings): one sentence each. */
  problems: string[]
}

/**
 * One session this server holds open for writing: the agent (holding the session's writer lease), the pages
 * watching it, and the permission requests waiting for one of them. Every page sees the same messages in the same
 * order; whichever page answers an ask first settles it for all.
 */
export class LiveSession {
  private readonly watchers = new Set<(message: StreamMessage) => void>()
  private readonly asks = new Map<string, PendingAsk>()
  private readonly unsubscribe: () => void

  constructor(readonly opened: OpenedAgent) {
    const agent = opened.agent
    agent.permissionAsker = (request, signal) =>
      new Promise<PermissionAnswer>((resolve) => {
        const id = randomUUID()
        const settle = (answer: PermissionAnswer): void => {
          if (!this.asks.delete(id)) return
          this.send({ kind: 'ask-settled', id })
          this.sendState()
          resolve(answer)
        }
        this.asks.set(id, { id, request, answer: settle })
        signal.addEventListener('abort', () => settle({ outcome: 'deny', note: 'The request was cancelled.' }), { once: true })
        this.send({ kind: 'ask', id, request })
        this.sendState()
      })
    this.unsubscribe = agent.subscribe((live) => {
      this.send({ kind: 'live', live })
      if (live.type === 'idle' || (live.type === 'event' && live.event.type.startsWith('turn/'))) this.sendState()
      if (live.type === 'event' && live.event.type.startsWith('inbox/')) this.sendState()
    })
  }

  get id(): string {
    return this.opened.agent.session.id
  }

  state(): LiveState {
    const agent = this.opened.agent
    return {
      hosted: true,
      busy: agent.busy,
      model: agent.config.model,
      effort: agent.config.effort,
      permissionMode: agent.permissionMode,
      queued: agent.queued.map((q) => ({ id: q.id, verb: q.verb })),
      asks: [...this.asks.values()].map((a) => ({ id: a.id, request: a.request })),
      events: agent.session.length,
      problems: this.opened.problems,
    }
  }

  watch(watcher: (message: StreamMessage) => void): () => void {
    this.watchers.add(watcher)
    return () => this.watchers.delete(watcher)
  }

  /** Settles a waiting ask; false when no ask has that id (already answered by another page, or cancelled). */
  answer(id: string, answer: PermissionAnswer): boolean {
    const ask = this.asks.get(id)
    if (!ask) return false
    ask.answer(answer)
    return true
  }

  sendState(): void {
    this.send({ kind: 'state', state: this.state() })
  }

  private send(message: StreamMessage): void {
    for (const watcher of this.watchers) {
      try {
        watcher(message)
      } catch {
        // A page whose stream broke is dropped by its own abort handler; the others still get the message.
      }
    }
  }

  async close(reason: string): Promise<void> {
    for (const ask of [...this.asks.values()]) ask.answer({ outcome: 'deny', note: 'The web server stopped.' })
    this.unsubscribe()
    this.opened.agent.permissionAsker = undefined
    await this.opened.agent.close(reason)
  }
}
