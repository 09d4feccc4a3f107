import type { EnteringMessage, Extension } from '../../src/agent/extensions.js'
import type { AgentApi, PermissionMode } from '../../src/agent/types.js'
import type { InputBlock } from '../../src/llm/messages.js'
import type { JsonValue, SurfaceEvent, SurfaceOp } from '../../src/session/events.js'
import { call } from '../permissions/calls.js'

/**
 * A stand-in for the agent that keeps only what the context producers read: the working directory, the permission
 * mode and a surface of events. `step` runs a producer's preStep the way the loop does and appends what it entered;
 * `tool` runs postTool and appends the context it returns. The real loop is exercised by the end-to-end tests.
 */
export class FakeAgent {
  surfaceEvents: SurfaceEvent[] = []
  permissionMode: PermissionMode = 'default'
  private seq = 0
  private turnStep = 0

  constructor(readonly cwd: string) {}

  get api(): AgentApi {
    const self = this
    // Only the members the producers touch exist; the cast says so once, here.
    return {
      cwd: this.cwd,
      get permissionMode() {
        return self.permissionMode
      },
      session: { surface: () => self.surfaceEvents },
    } as unknown as AgentApi
  }

  /** Runs one step: the prompt (if any) enters, then each producer's preStep in order. Returns what entered. */
  async step(producers: Extension<AgentApi>[], prompt?: string): Promise<EnteringMessage[]> {
    let entering: EnteringMessage[] = prompt
      ? [{ type: 'user/message', content: [{ type: 'text', text: prompt }], source: { kind: 'user' } }]
      : []
    this.turnStep++
    for (const p of producers) {
      const decision = await p.preStep?.({ turn: 1, step: this.turnStep }, entering, this.api)
      if (decision?.action === 'enter') entering = decision.messages
      if (decision?.action === 'reject') throw new Error(decision.reason)
    }
    for (const m of entering) this.append(m.type, m.content, m.source.kind, m.meta)
    return entering
  }

  /** Runs postTool for one call of `name` with `input`; appends and returns the context it asks for. */
  async tool(producer: Extension<AgentApi>, name: string, input: Record<string, unknown>): Promise<string[]> {
    const outcome = await producer.postTool?.(
      { ...call(name, input), step: this.turnStep, callId: `c${this.seq}` },
      { content: [{ type: 'text', text: 'ok' }] },
      this.api,
    )
    const texts: string[] = []
    for (const entry of outcome?.context ?? []) {
      this.append('context/message', entry.content, entry.source.kind, entry.meta)
      texts.push(entry.content.map((b) => (b.type === 'text' ? b.text : '')).join(''))
    }
    return texts
  }

  /** Shadows every surface entry with one summary, as compaction does. */
  compact(summary: string): void {
    const start = this.surfaceEvents[0]?.seq ?? 0
    const end = this.surfaceEvents.at(-1)?.seq ?? 0
    this.surfaceEvents = []
    this.append('context/message', [{ type: 'text', text: summary }], 'compaction', undefined, { op: 'replace', start, end })
  }

  /** The texts on the surface from producer `kind`. */
  textsFrom(kind: string): string[] {
    const texts: string[] = []
    for (const e of this.surfaceEvents) {
      if (e.type !== 'context/message' || e.data.source.kind !== kind) continue
      texts.push(e.data.content.map((b) => (b.type === 'text' ? b.text : '')).join(''))
    }
    return texts
  }

  private append(
    type: EnteringMessage['type'],
    content: InputBlock[],
    kind: string,
    meta?: JsonValue,
    surfaceOp: SurfaceOp = 'append',
  ): void {
    const seq = this.seq++
    const base = { seq, time: 0, surfaceOp }
    const id = `m${seq}`
    if (type === 'context/message') {
      this.surfaceEvents.push({ ...base, type, data: { id, content, source: { kind }, ...(meta !== undefined ? { meta } : {}) } })
    } else if (type === 'user/message') {
      this.surfaceEvents.push({ ...base, type, data: { id, content, source: { kind } } })
    } else {
      this.surfaceEvents.push({ ...base, type, data: { id, turn: 1, content, source: { kind } } })
    }
  }
}
