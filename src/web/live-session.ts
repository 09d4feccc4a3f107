import { randomUUID } from 'node:crypto'
import type { OpenedAgent } from '../runtime/open.js'
import type { LiveEvent, PermissionAnswer, PermissionRequest } from '../agent/types.js'
import { addLocalAllowRule } from '../config/settings.js'
import { keepingTrust } from '../runtime/workspace-trust.js'
import { agentToolLookup, permissionQuestion } from '../frontend/render/index.js'
import type { ShownQuestion } from './api-types.js'
import { pageQuestion } from './shown-events.js'

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
  | { kind: 'logged-state'; state: { hosted: false; state: import('./api-types.js').ShownState } }

/** The session's controls as the page shows them. */
export interface LiveState {
  hosted: true
  busy: boolean
  model: string
  effort: string
  permissionMode: string
  /** Inputs waiting for delivery, with the start of their text. */
  queued: { id: string; verb: string; text: string }[]
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

  constructor(
    readonly opened: OpenedAgent,
    private readonly home: string,
  ) {
    const agent = opened.agent
    const tools = agentToolLookup(agent)
    agent.permissionAsker = async (asked, signal) => {
      // The page shows the question as every surface does: its text, the whole command, the diff before approval.
      const request: PermissionRequest & { question: ShownQuestion } = {
        ...asked,
        question: pageQuestion(await permissionQuestion(asked, tools(asked.call.name), agent.cwd)),
      }
      if (signal.aborted) return { outcome: 'deny', note: 'The request was cancelled.' }
      return new Promise<PermissionAnswer>((resolve) => {
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
    }
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
      queued: agent.queued.map((q) => ({ id: q.id, verb: q.verb, text: textOf(q.content).slice(0, 200) })),
      asks: [...this.asks.values()].map((a) => ({ id: a.id, request: a.request })),
      events: agent.session.length,
      problems: this.opened.problems,
    }
  }

  watch(watcher: (message: StreamMessage) => void): () => void {
    this.watchers.add(watcher)
    return () => this.watchers.delete(watcher)
  }

  /**
   * Settles a waiting ask; false when no ask has that id (already answered by another page, or cancelled). "Allow
   * always" allows the rule Rein suggested for the call, never one the page names, and saves it to
   * `.rein/settings.local.json` as the terminal UI does.
   */
  answer(id: string, outcome: 'allow-once' | 'allow-always' | 'deny', note?: string): boolean {
    const ask = this.asks.get(id)
    if (!ask) return false
    const rule = ask.request.suggestedRule
    if (outcome === 'allow-always' && rule) this.saveRule(rule)
    ask.answer(
      outcome === 'deny'
        ? { outcome: 'deny', ...(note ? { note } : {}) }
        : outcome === 'allow-always'
          ? { outcome: 'allow-always', ...(rule ? { rule } : {}) }
          : { outcome: 'allow-once' },
    )
    return true
  }

  private saveRule(rule: string): void {
    const agent = this.opened.agent
    try {
      keepingTrust({ cwd: agent.cwd, home: this.home }, () => addLocalAllowRule(agent.cwd, rule))
      agent.notify('info', `Added ${rule} to .rein/settings.local.json.`)
    } catch (error) {
      agent.notify('warning', `Allowed this call, but could not save the rule: ${error instanceof Error ? error.message : String(error)}`)
    }
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

/** The text blocks of an input, joined. */
export function textOf(content: readonly { type: string; text?: string }[]): string {
  return content
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('\n')
}
