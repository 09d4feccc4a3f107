import type { InputBlock } from '../llm/messages.js'
import type { JsonValue, SessionEvent, Source } from '../session/events.js'
import type { ToolOutput } from '../tools/tool.js'
import type {
  EnteringMessage,
  Extension,
  PostToolDecision,
  PreToolDecision,
  SessionStartSource,
  StepInfo,
  ToolCallInfo,
  TurnStoppingInfo,
} from './extensions.js'
import type { AgentApi } from './types.js'

/** A listener threw. The turn ends with reason `error` and this message, which names the listener. */
export class ListenerError extends Error {
  constructor(
    readonly listener: string,
    readonly point: string,
    cause: unknown,
  ) {
    super(`The ${point} listener "${listener}" failed: ${cause instanceof Error ? cause.message : String(cause)}`)
    this.name = 'ListenerError'
  }
}

const precedence: Record<PreToolDecision['action'], number> = { allow: 0, rewrite: 0, ask: 1, deny: 2 }

/** The extension points of DESIGN section 5, awaited in registration order. */
export class Listeners {
  private readonly list: Extension<AgentApi>[] = []

  add(extension: Extension<AgentApi>): void {
    this.list.push(extension)
  }

  private async each<R>(
    point: keyof Extension<AgentApi>,
    call: (ext: Extension<AgentApi>) => R | Promise<R> | undefined,
  ): Promise<{ ext: Extension<AgentApi>; value: R }[]> {
    const out: { ext: Extension<AgentApi>; value: R }[] = []
    for (const ext of this.list) {
      if (!ext[point]) continue
      try {
        const value = await call(ext)
        if (value !== undefined) out.push({ ext, value })
      } catch (error) {
        throw new ListenerError(ext.name, point, error)
      }
    }
    return out
  }

  async sessionStart(agent: AgentApi, source: SessionStartSource): Promise<void> {
    await this.each('sessionStart', (ext) => ext.sessionStart?.(agent, source))
  }

  /** Each listener sees the list the previous one entered. A reject stops the step at once. */
  async preStep(
    step: StepInfo,
    entering: EnteringMessage[],
    agent: AgentApi,
  ): Promise<{ messages: EnteringMessage[] } | { reject: string }> {
    let messages = entering
    for (const ext of this.list) {
      if (!ext.preStep) continue
      let decision
      try {
        decision = await ext.preStep(step, messages, agent)
      } catch (error) {
        throw new ListenerError(ext.name, 'preStep', error)
      }
      if (!decision) continue
      if (decision.action === 'reject') return { reject: decision.reason }
      messages = decision.messages
    }
    return { messages }
  }

  /**
   * Runs every preTool listener; a rewrite is passed on to the listeners after it. The verdict is the strongest
   * decision: deny beats ask beats allow. With no decision at all the call is allowed.
   */
  async preTool(
    call: ToolCallInfo,
    agent: AgentApi,
    reparse: (args: string) => unknown,
  ): Promise<{ call: ToolCallInfo; verdict: 'allow' | 'ask' | 'deny'; reason?: string; rewrittenBy?: string }> {
    let current = call
    let verdict: 'allow' | 'ask' | 'deny' = 'allow'
    let reason: string | undefined
    let rewrittenBy: string | undefined
    for (const ext of this.list) {
      if (!ext.preTool) continue
      let decision: PreToolDecision | void
      try {
        decision = await ext.preTool(current, agent)
      } catch (error) {
        throw new ListenerError(ext.name, 'preTool', error)
      }
      if (!decision) continue
      if (decision.action === 'rewrite') {
        current = { ...current, arguments: decision.arguments, input: reparse(decision.arguments) }
        rewrittenBy = ext.name
        continue
      }
      const kind = decision.action
      if (precedence[kind] > precedence[verdict] || (kind === verdict && reason === undefined)) {
        verdict = kind
        reason = decision.reason
      }
    }
    return { call: current, verdict, reason, rewrittenBy }
  }

  /** The last replace wins; blocks are joined; context entries are collected in listener order. */
  async postTool(
    call: ToolCallInfo,
    result: ToolOutput,
    agent: AgentApi,
  ): Promise<{ content?: InputBlock[]; blocks: string[]; context: { content: InputBlock[]; source: Source; meta?: JsonValue }[] }> {
    const outcomes = await this.each('postTool', (ext) => ext.postTool?.(call, result, agent) ?? undefined)
    let content: InputBlock[] | undefined
    const blocks: string[] = []
    const context: { content: InputBlock[]; source: Source; meta?: JsonValue }[] = []
    for (const { value } of outcomes) {
      if (!value) continue
      const d: PostToolDecision | undefined = value.decision
      if (d?.action === 'replace') content = d.content
      if (d?.action === 'block') blocks.push(d.reason)
      if (value.context) context.push(...value.context)
    }
    return { content, blocks, context }
  }

  async turnStopping(info: TurnStoppingInfo, agent: AgentApi): Promise<void> {
    await this.each('turnStopping', (ext) => ext.turnStopping?.(info, agent))
  }

  /** Observers must not break the log: a throwing observer is reported, not propagated. */
  event(event: SessionEvent, agent: AgentApi, report: (message: string) => void): void {
    for (const ext of this.list) {
      if (!ext.event) continue
      try {
        ext.event(event, agent)
      } catch (error) {
        report(`The event listener "${ext.name}" failed: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
  }

  async sessionEnd(agent: AgentApi, reason: string): Promise<void> {
    for (const ext of this.list) {
      try {
        await ext.sessionEnd?.(agent, reason)
      } catch {
        // Session end runs while closing; a failing listener must not keep the log from being flushed and closed.
      }
    }
  }
}
