import type { AgentApi, LiveEvent, PermissionAsker, PermissionMode, TurnOutcome } from '../../../src/agent/types.js'
import type { ModelConfig } from '../../../src/llm/adapter.js'
import type { EventDataMap, EventType, SessionEvent } from '../../../src/session/events.js'
import type { TuiServices } from '../../../src/cli/tui/services.js'
import type { EventOf } from '../../support/events.js'

/**
 * An agent stand-in for component tests: it keeps a real event list, commits events the way the agent does
 * (`commit` appends and broadcasts), and records what the UI asked of it. End-to-end tests use the real agent.
 */
export class FakeAgent {
  readonly cwd: string
  readonly events: SessionEvent[] = []
  readonly session: { id: string; events: SessionEvent[] }
  config: ModelConfig = { model: 'deepseek-v4-flash', effort: 'high' }
  permissionMode: PermissionMode = 'default'
  busy = false
  permissionAsker?: PermissionAsker
  readonly calls: { verb: 'followUp' | 'steer' | 'cancel' | 'withdraw' | 'compact'; text?: string; id?: string; keep?: number }[] = []
  private listeners = new Set<(e: LiveEvent) => void>()
  private nextId = 0
  private clock = 1_700_000_000_000

  constructor(cwd = '/work/project') {
    this.cwd = cwd
    this.session = { id: 'aaaabbbb-cccc-dddd-eeee-ffff00001111', events: this.events }
  }

  /** Appends one committed event and tells live listeners, as the real session bus does. */
  commit<T extends EventType>(type: T, data: EventDataMap[T], options: { at?: number; surface?: boolean } = {}): EventOf<T> {
    this.clock = options.at ?? this.clock + 10
    const event = { seq: this.events.length, time: this.clock, type, data } as EventOf<T>
    if (options.surface) event.surfaceOp = 'append'
    this.events.push(event)
    this.emit({ type: 'event', event })
    return event
  }

  emit(event: LiveEvent): void {
    for (const l of this.listeners) l(event)
  }

  followUp(content: string | unknown): string {
    const id = `m${this.nextId++}`
    this.calls.push({ verb: 'followUp', text: String(content), id })
    this.commit('inbox/queued', { id, verb: 'followUp', content: [{ type: 'text', text: String(content) }], source: { kind: 'user' } })
    return id
  }

  steer(content: string | unknown): string {
    const id = `m${this.nextId++}`
    this.calls.push({ verb: 'steer', text: String(content), id })
    this.commit('inbox/queued', { id, verb: 'steer', content: [{ type: 'text', text: String(content) }], source: { kind: 'user' } })
    return id
  }

  /** Like the real agent, a compaction that ran is logged as `compaction/end`, which the transcript shows. */
  async compact(focus?: string, options: { keep?: number } = {}): Promise<{ outcome: string; message: string }> {
    this.calls.push({ verb: 'compact', text: focus, ...(options.keep !== undefined ? { keep: options.keep } : {}) })
    const message = 'Compacted 4 messages (about 900 tokens) into a summary of about 120 tokens.'
    this.commit('compaction/end', { id: 'k1', outcome: 'replaced', message })
    return { outcome: 'replaced', message }
  }

  withdraw(id: string): boolean {
    this.calls.push({ verb: 'withdraw', id })
    this.commit('inbox/dequeued', { id, reason: 'withdrawn' })
    return true
  }

  inject(): string {
    return `c${this.nextId++}`
  }

  cancel(): void {
    this.calls.push({ verb: 'cancel' })
  }

  whenIdle(): Promise<TurnOutcome | undefined> {
    return Promise.resolve(undefined)
  }

  subscribe(listener: (e: LiveEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  setPermissionMode(mode: PermissionMode): void {
    const previous = this.permissionMode
    this.permissionMode = mode
    this.commit('permission/mode', { mode, previous })
  }

  setModel(config: Partial<ModelConfig>): void {
    this.config = { ...this.config, ...config }
  }

  notify(level: 'info' | 'warning' | 'error', message: string): void {
    this.emit({ type: 'notice', level, message })
  }

  async close(): Promise<void> {}

  /** The same object, typed as the contract the UI codes against. */
  get api(): AgentApi {
    return this as unknown as AgentApi
  }
}

/** Services with a 1M-token window and flat prices of $1 per million tokens of any kind. */
export function fakeServices(overrides: Partial<TuiServices> = {}): TuiServices & { rules: string[] } {
  const rules: string[] = []
  return {
    rules,
    facts: () => ({
      contextWindow: 1_000_000,
      cost: (u) => (u.inputUncached + u.inputCacheRead + u.output) / 1_000_000,
    }),
    addLocalAllowRule: (_cwd, rule) => {
      rules.push(rule)
    },
    listSessions: async () => [],
    workspaceFiles: async () => ['src/main.ts', 'src/util.ts', 'README.md'],
    permissionRules: () => ({ allow: [], ask: [], deny: [] }),
    ...overrides,
  }
}

/** Lets React and ink flush: effects, state updates, the throttled render. */
export async function settle(ms = 30): Promise<void> {
  await new Promise((r) => setTimeout(r, ms))
}

/**
 * Waits until the last frame (escape codes removed) contains `text`, then a little longer so effects that attach
 * input listeners have run. Fails with the frame when it never appears.
 */
export async function waitForFrame(ui: { lastFrame(): string | undefined }, text: string, timeoutMs = 5000): Promise<string> {
  const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '')
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const frame = strip(ui.lastFrame() ?? '')
    if (frame.includes(text)) {
      await settle(50)
      return strip(ui.lastFrame() ?? '')
    }
    if (Date.now() > deadline) throw new Error(`the screen never showed ${JSON.stringify(text)}; it shows:\n${frame}`)
    await settle(10)
  }
}
