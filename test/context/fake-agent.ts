import { extensionContext } from '../../src/agent/extension-context.js'
import type { EnteringMessage, Extension, ExtensionContext } from '../../src/agent/extensions.js'
import type { PermissionMode } from '../../src/agent/types.js'
import type { JsonValue } from '../../src/session/events.js'
import { Session } from '../../src/session/session.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import { call } from '../permissions/calls.js'

/**
 * A real session on a memory store, driven the way the loop drives context producers: `step` runs their preStep
 * and appends what they entered, `tool` runs postTool and appends the context it returns, `compact` shadows the
 * surface with a summary. Producers get the same `ExtensionContext` the agent gives them. The loop itself is
 * exercised by the agent and end-to-end tests.
 */
export class FakeAgent {
  permissionMode: PermissionMode = 'default'
  readonly api: ExtensionContext
  /** Every notice a producer showed the user, in order. */
  readonly notices: string[] = []
  private step_ = 0
  private calls = 0
  /** Producers that have run, which observe every committed event from then on, as the agent's `event` point does. */
  private readonly observers = new Set<Extension>()

  private constructor(readonly session: Session) {
    const self = this
    session.subscribe((event) => {
      for (const p of this.observers) p.event?.(event, this.api)
    })
    this.api = extensionContext({
      session,
      get permissionMode() {
        return self.permissionMode
      },
      config: { model: 'deepseek-v4-flash', effort: 'high' },
      inject: () => {
        throw new Error('context producers enter their messages through preStep, not inject')
      },
      steer: () => {
        throw new Error('context producers do not steer')
      },
      notify: (_level, message) => {
        self.notices.push(message)
      },
      stopTurn: () => {},
      setPermissionMode: (mode) => {
        self.permissionMode = mode
      },
      setModel: () => {
        throw new Error('context producers do not switch the model')
      },
    })
  }

  static async open(cwd: string): Promise<FakeAgent> {
    return new FakeAgent(await Session.create(new MemoryStore(), { cwd }))
  }

  /** Ends the turn: the next step is the first of a new one (the numbering producers see). */
  newTurn(): void {
    this.step_ = 0
  }

  /** Runs one step: the prompt (if any) enters, then each producer's preStep in order. Returns what entered. */
  async step(producers: Extension[], prompt?: string): Promise<EnteringMessage[]> {
    let entering: EnteringMessage[] = prompt
      ? [{ type: 'user/message', content: [{ type: 'text', text: prompt }], source: { kind: 'user' } }]
      : []
    this.step_++
    for (const p of producers) {
      this.observers.add(p)
      const decision = await p.preStep?.({ turn: 1, step: this.step_ }, entering, this.api)
      if (decision?.action === 'enter') entering = decision.messages
      if (decision?.action === 'reject') throw new Error(decision.reason)
    }
    for (const m of entering) this.enter(m)
    return entering
  }

  /** Runs postTool for one call of `name` with `input`; appends and returns the context it asks for. */
  async tool(producer: Extension, name: string, input: Record<string, unknown>): Promise<string[]> {
    this.observers.add(producer)
    const callId = `c${this.calls++}`
    const outcome = await producer.postTool?.(
      { ...call(name, input), turn: 1, step: this.step_, callId },
      { content: [{ type: 'text', text: 'ok' }] },
      this.api,
    )
    const texts: string[] = []
    for (const entry of outcome?.context ?? []) {
      this.enter({ type: 'context/message', ...entry })
      texts.push(entry.content.map((b) => (b.type === 'text' ? b.text : '')).join(''))
    }
    return texts
  }

  /** Appends a context message as a producer of `kind` would have left it in the log, `meta` as given. */
  enterContext(kind: string, text: string, meta: JsonValue): void {
    this.enter({ type: 'context/message', content: [{ type: 'text', text }], source: { kind }, meta })
  }

  /** Shadows every surface entry with one summary, as compaction does. */
  compact(summary: string): void {
    const surface = this.session.surface()
    const op = surface.length ? { op: 'replace' as const, start: surface[0].seq, end: surface[surface.length - 1].seq } : 'append'
    this.session.append('context/message', { id: `s${this.session.length}`, content: [{ type: 'text', text: summary }], source: { kind: 'compaction' } }, { surfaceOp: op })
  }

  /** The texts on the surface from producer `kind`. */
  textsFrom(kind: string): string[] {
    const texts: string[] = []
    for (const e of this.session.surface()) {
      if (e.type !== 'context/message' || e.data.source.kind !== kind) continue
      texts.push(e.data.content.map((b) => (b.type === 'text' ? b.text : '')).join(''))
    }
    return texts
  }

  private enter(m: EnteringMessage): void {
    const id = `m${this.session.length}`
    if (m.type === 'user/message') this.session.append('user/message', { id, content: m.content, source: m.source })
    else if (m.type === 'steering/message') this.session.append('steering/message', { id, turn: 1, content: m.content, source: m.source })
    else this.session.append('context/message', { id, content: m.content, source: m.source, ...(m.meta !== undefined ? { meta: m.meta } : {}) })
  }
}
