import type { InputBlock } from '../llm/messages.js'
import type { JsonValue, SessionEvent, Source } from '../session/events.js'
import type { ToolOutput } from '../tools/tool.js'
import type {
  BeforeRequestInfo,
  EnteringMessage,
  Extension,
  ExtensionCommand,
  ExtensionContext,
  PostToolDecision,
  PreToolDecision,
  RequestFailedInfo,
  SessionStartSource,
  StepInfo,
  ToolCallInfo,
  TurnStoppingInfo,
} from './extensions.js'
import type { PermissionAnswer, PermissionRequest } from './types.js'

/** A listener threw. The turn ends with reason `error` and this message, which names the listener. */
export class ListenerError extends Error {
  constructor(
    readonly listener: string,
    readonly point: string,
    cause: unknown,
  ) {
    super(`The ${point} listener "${listener}" failed: ${messageOf(cause)}`)
    this.name = 'ListenerError'
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const precedence: Record<PreToolDecision['action'], number> = { allow: 0, rewrite: 0, ask: 1, deny: 2 }

/** The verdict of every preTool listener together. */
export interface PreToolVerdict {
  call: ToolCallInfo
  verdict: 'allow' | 'ask' | 'deny'
  reason?: string
  /** The rule the deciding `ask` offered for "allow always". */
  suggestedRule?: string
  rewrittenBy?: string
}

/**
 * The extension points of DESIGN section 5, awaited in registration order. Every listener gets the same
 * `ExtensionContext`, never the agent.
 */
export class Listeners {
  private readonly list: Extension[] = []

  constructor(
    private readonly context: ExtensionContext,
    /** Where failures of observers (event, permission and end listeners) are reported. */
    private readonly report: (message: string) => void,
  ) {}

  add(extension: Extension): void {
    this.list.push(extension)
  }

  /** The command `name` of the first extension that offers one. */
  command(name: string): ExtensionCommand | undefined {
    for (const ext of this.list) {
      const command = ext.commands?.[name]
      if (command) return command
    }
    return undefined
  }

  private async each<R>(point: keyof Extension, call: (ext: Extension) => R | Promise<R> | undefined): Promise<R[]> {
    const out: R[] = []
    for (const ext of this.list) {
      if (!ext[point]) continue
      try {
        const value = await call(ext)
        if (value !== undefined) out.push(value)
      } catch (error) {
        throw new ListenerError(ext.name, point, error)
      }
    }
    return out
  }

  /** Like `each`, but a failure is reported and the next listener still runs: for observers that cannot stop anything. */
  private async observe(point: keyof Extension, call: (ext: Extension) => unknown): Promise<void> {
    for (const ext of this.list) {
      if (!ext[point]) continue
      try {
        await call(ext)
      } catch (error) {
        this.report(`The ${point} listener "${ext.name}" failed: ${messageOf(error)}`)
      }
    }
  }

  async sessionStart(source: SessionStartSource): Promise<void> {
    await this.each('sessionStart', (ext) => ext.sessionStart?.(this.context, source))
  }

  /** Each listener sees the list the previous one entered. A reject stops the step at once. */
  async preStep(step: StepInfo, entering: EnteringMessage[]): Promise<{ messages: EnteringMessage[] } | { reject: string }> {
    let messages = entering
    for (const ext of this.list) {
      if (!ext.preStep) continue
      let decision
      try {
        decision = await ext.preStep(step, messages, this.context)
      } catch (error) {
        throw new ListenerError(ext.name, 'preStep', error)
      }
      if (!decision) continue
      if (decision.action === 'reject') return { reject: decision.reason }
      messages = decision.messages
    }
    return { messages }
  }

  async beforeRequest(info: BeforeRequestInfo): Promise<void> {
    await this.each('beforeRequest', (ext) => ext.beforeRequest?.(info, this.context))
  }

  /** True when any listener asked for the request to be sent again. Every listener is told of the failure. */
  async requestFailed(info: RequestFailedInfo): Promise<boolean> {
    const answers = await this.each('requestFailed', (ext) => ext.requestFailed?.(info, this.context) ?? undefined)
    return answers.includes('retry')
  }

  /**
   * Runs every preTool listener; a rewrite is passed on to the listeners after it. The verdict is the strongest
   * decision: deny beats ask beats allow. With no decision at all the call is allowed.
   */
  async preTool(call: ToolCallInfo, reparse: (args: string) => unknown): Promise<PreToolVerdict> {
    const out: PreToolVerdict = { call, verdict: 'allow' }
    for (const ext of this.list) {
      if (!ext.preTool) continue
      let decision: PreToolDecision | void
      try {
        decision = await ext.preTool(out.call, this.context)
      } catch (error) {
        throw new ListenerError(ext.name, 'preTool', error)
      }
      if (!decision) continue
      if (decision.action === 'rewrite') {
        out.call = { ...out.call, arguments: decision.arguments, input: reparse(decision.arguments) }
        out.rewrittenBy = ext.name
        continue
      }
      const kind = decision.action
      if (precedence[kind] > precedence[out.verdict] || (kind === out.verdict && out.reason === undefined)) {
        out.verdict = kind
        out.reason = decision.reason
      }
      // The rule offered with the question is the first one any asking listener suggested.
      if (decision.action === 'ask') out.suggestedRule ??= decision.suggestedRule
    }
    return out
  }

  /** The first listener's answer to a question a person would be asked (PermissionRequest hooks); undefined: ask. */
  async answerPermission(request: PermissionRequest): Promise<PermissionAnswer | undefined> {
    const answers = await this.each('answerPermission', async (ext) => (await ext.answerPermission?.(request, this.context)) ?? undefined)
    return answers[0]
  }

  async permissionAsked(request: PermissionRequest): Promise<void> {
    await this.observe('permissionAsked', (ext) => ext.permissionAsked?.(request, this.context))
  }

  async permissionAnswered(request: PermissionRequest, answer: PermissionAnswer): Promise<void> {
    await this.observe('permissionAnswered', (ext) => ext.permissionAnswered?.(request, answer, this.context))
  }

  /** The last replace wins; blocks are joined; context entries are collected in listener order. */
  async postTool(
    call: ToolCallInfo,
    result: ToolOutput,
  ): Promise<{ content?: InputBlock[]; blocks: string[]; context: { content: InputBlock[]; source: Source; meta?: JsonValue }[] }> {
    const outcomes = await this.each('postTool', (ext) => ext.postTool?.(call, result, this.context) ?? undefined)
    let content: InputBlock[] | undefined
    const blocks: string[] = []
    const context: { content: InputBlock[]; source: Source; meta?: JsonValue }[] = []
    for (const value of outcomes) {
      if (!value) continue
      const d: PostToolDecision | undefined = value.decision
      if (d?.action === 'replace') content = d.content
      if (d?.action === 'block') blocks.push(d.reason)
      if (value.context) context.push(...value.context)
    }
    return { content, blocks, context }
  }

  async turnStopping(info: TurnStoppingInfo): Promise<void> {
    await this.each('turnStopping', (ext) => ext.turnStopping?.(info, this.context))
  }

  /** Observers must not break the log: a throwing observer is reported, not propagated. */
  event(event: SessionEvent): void {
    for (const ext of this.list) {
      if (!ext.event) continue
      try {
        ext.event(event, this.context)
      } catch (error) {
        this.report(`The event listener "${ext.name}" failed: ${messageOf(error)}`)
      }
    }
  }

  /** Session end runs while closing; a failing listener must not keep the log from being flushed and closed. */
  async sessionEnd(reason: string): Promise<void> {
    await this.observe('sessionEnd', (ext) => ext.sessionEnd?.(this.context, reason))
  }
}
