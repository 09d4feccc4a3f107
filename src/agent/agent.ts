import { randomUUID } from 'node:crypto'
import { ResponseAssembler } from '../llm/assemble.js'
import type { ModelAdapter, ModelConfig } from '../llm/adapter.js'
import { ModelError } from '../llm/errors.js'
import type { AssistantMessage, ToolSchema } from '../llm/messages.js'
import { toolCallsOf } from '../llm/messages.js'
import { retryDelay } from '../llm/retry.js'
import type { FinishReason } from '../llm/stream.js'
import type { JsonValue, LoggedError, Source, TurnEndReason } from '../session/events.js'
import type { Session } from '../session/session.js'
import type { AnyTool, ToolState } from '../tools/tool.js'
import type { CompactionOutcome, Compactor } from '../compaction/compactor.js'
import type { EnteringMessage, Extension, SessionStartSource, ToolCallInfo } from './extensions.js'
import { Inbox, type InboxItem } from './inbox.js'
import { ListenerError, Listeners } from './listeners.js'
import { buildRequest, encodeRequest, sameHeader, type RequestHeader } from './request.js'
import { runToolCalls } from './tool-runner.js'
import type { AgentApi, ContentInput, LiveEvent, PermissionAsker, PermissionMode, PermissionRequest, TurnOutcome } from './types.js'
import { toBlocks } from './types.js'

export interface AgentOptions {
  session: Session
  adapter: ModelAdapter
  tools: AnyTool[]
  /** The model-facing schemas of `tools`, sorted and stable (src/tools/registry.ts). */
  schemas: (tools: readonly AnyTool[]) => ToolSchema[]
  system: string
  config: ModelConfig
  toolState: ToolState
  permissionMode?: PermissionMode
  extensions?: Extension<AgentApi>[]
  /** How this agent came to the session: decides the first header's reason and the sessionStart source. */
  start?: SessionStartSource
  /** A cap on steps per turn (`--max-turns`); the turn ends `max-steps` when reached. */
  maxSteps?: number
  toolConcurrency?: number
  permissionNeeded?: (call: ToolCallInfo, reason?: string) => string
  /** Injectable for tests: how retry waits are slept and jitter drawn. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
  random?: () => number
  /** Told whenever a front end is asked for permission (Notification hooks). */
  onPermissionAsked?: (request: PermissionRequest) => void
  /** A rule that would allow calls like this one, offered with "allow always". */
  suggestRule?: (call: ToolCallInfo) => string | undefined
  allowAlways?: (rule: string) => void
  /** Keeps the prompt inside the context window (src/compaction); absent means never compact. */
  compactor?: Compactor
  /** Released when the agent closes (background jobs, MCP servers). */
  onClose?: () => Promise<void>
}

const defaultSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done(): void {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })

const defaultPermissionNeeded = (call: ToolCallInfo): string =>
  `Error: ${call.name} needs permission and no one is attached to grant it. The user can allow it with --permission-mode or --allow.`

/** A turn ends with this; it carries the logged error for `turn/end`. */
class TurnEnd {
  constructor(
    readonly reason: TurnEndReason,
    readonly error?: LoggedError,
  ) {}
}

/**
 * The agent: one session, one inbox, one turn at a time. The whole turn/step flow of DESIGN section 3 is
 * `runTurn` below; tool calls are run by tool-runner.ts. Every input reaches the model only through the log.
 */
export class Agent implements AgentApi {
  readonly session: Session
  permissionAsker?: PermissionAsker
  private readonly adapter: ModelAdapter
  private tools = new Map<string, AnyTool>()
  private readonly schemasOf: (tools: readonly AnyTool[]) => ToolSchema[]
  private schemas: ToolSchema[] = []
  private system: string
  private modelConfig: ModelConfig
  private mode: PermissionMode
  private readonly listeners = new Listeners()
  private readonly inbox: Inbox
  private readonly live = new Set<(event: LiveEvent) => void>()
  private earlyNotices: LiveEvent[] = []
  private readonly options: AgentOptions
  private loop: Promise<void> | null = null
  private abort: AbortController | null = null
  private headerLogged = false
  private turnNumber: number
  private lastOutcome: TurnOutcome | undefined
  private idleWaiters: ((outcome: TurnOutcome | undefined) => void)[] = []
  private closed = false
  /** The turn in which automatic compaction last failed; it is not tried again in that turn. */
  private autoCompactionFailedIn = 0
  /** Set by `interrupt`: the running turn ends `interrupted` rather than `aborted`. */
  private interrupted = false
  /** Why `stopTurn` ended the running turn, when it did. */
  private stopMessage: string | undefined
  /** Set while a manual compaction runs outside a turn. */
  private compacting: AbortController | null = null
  private readonly unsubscribe: () => void

  private constructor(options: AgentOptions) {
    this.options = options
    this.session = options.session
    this.adapter = options.adapter
    this.schemasOf = options.schemas
    this.setTools(options.tools)
    this.system = options.system
    this.modelConfig = options.config
    this.mode = options.permissionMode ?? 'default'
    for (const ext of options.extensions ?? []) this.listeners.add(ext)
    this.inbox = Inbox.fromEvents(this.session.events)
    this.turnNumber = this.session.last('turn/start')?.data.turn ?? 0
    this.unsubscribe = this.session.subscribe((event) => {
      this.emit({ type: 'event', event })
      this.listeners.event(event, this, (message) => this.notify('warning', message))
    })
  }

  /** Creates the agent, runs `sessionStart` listeners, and resumes delivery of anything still queued in the log. */
  static async create(options: AgentOptions): Promise<Agent> {
    const agent = new Agent(options)
    await agent.listeners.sessionStart(agent, options.start ?? 'startup')
    if (agent.inbox.hasWaking()) agent.schedule()
    return agent
  }

  get cwd(): string {
    return this.session.cwd
  }
  get config(): ModelConfig {
    return this.modelConfig
  }
  get permissionMode(): PermissionMode {
    return this.mode
  }
  get busy(): boolean {
    return this.loop !== null || this.compacting !== null
  }
  /** The queued inputs not yet delivered, oldest first. */
  get queued(): readonly InboxItem[] {
    return this.inbox.list()
  }
  get toolList(): readonly AnyTool[] {
    return [...this.tools.values()]
  }

  followUp(content: ContentInput, source: Source = { kind: 'user' }): string {
    return this.enqueue('followUp', content, source)
  }

  steer(content: ContentInput, source: Source = { kind: 'user' }): string {
    return this.enqueue('steer', content, source)
  }

  inject(content: ContentInput, source: Source = { kind: 'user' }, meta?: JsonValue): string {
    return this.enqueue('inject', content, source, meta)
  }

  /** Takes a queued input back before delivery (a front end editing it). */
  withdraw(id: string): InboxItem | undefined {
    const item = this.inbox.withdraw(id)
    if (item) this.session.append('inbox/dequeued', { id, reason: 'withdrawn' })
    return item
  }

  cancel(): void {
    if (this.loop && this.abort && !this.abort.signal.aborted) this.abort.abort()
    this.compacting?.abort()
  }

  /**
   * Ends the running turn as `interrupted`: the process is going away on a signal. Otherwise exactly like `cancel`
   * (running tools' process groups are killed; the turn's end is committed).
   */
  interrupt(): void {
    if (this.loop && this.abort && !this.abort.signal.aborted) this.interrupted = true
    this.cancel()
  }

  stopTurn(message: string): void {
    if (!this.loop || !this.abort || this.abort.signal.aborted) return
    this.stopMessage = message
    this.abort.abort()
  }

  whenIdle(): Promise<TurnOutcome | undefined> {
    if (!this.loop) return Promise.resolve(this.lastOutcome)
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  subscribe(listener: (event: LiveEvent) => void): () => void {
    this.live.add(listener)
    const early = this.earlyNotices
    this.earlyNotices = []
    for (const notice of early) listener(notice)
    return () => this.live.delete(listener)
  }

  setPermissionMode(mode: PermissionMode): void {
    if (mode === this.mode) return
    const previous = this.mode
    this.mode = mode
    this.session.append('permission/mode', { mode, previous })
  }

  setModel(config: Partial<ModelConfig>): void {
    this.modelConfig = { ...this.modelConfig, ...config }
  }

  /** Replaces the tool set (MCP servers coming and going); the next request logs a new header. */
  setTools(tools: readonly AnyTool[]): void {
    this.tools = new Map(tools.map((t) => [t.name, t]))
    this.schemas = this.schemasOf(tools)
  }

  notify(level: 'info' | 'warning' | 'error', message: string): void {
    // Notices often quote an error body; a secret in one must not reach a front end either.
    this.emit({ type: 'notice', level, message: this.session.redact(message) })
  }

  /**
   * Compacts the session now (`/compact`, RPC `compact`). Only while idle. Everything but the newest `keep` exchanges
   * (default 1) is summarized (docs/compaction.md).
   */
  async compact(focus?: string, options: { keep?: number } = {}): Promise<CompactionOutcome> {
    const compactor = this.options.compactor
    if (!compactor) return { outcome: 'nothing', message: 'Compaction is not available in this session.' }
    if (this.loop || this.compacting) throw new Error('Cannot compact while a turn runs; wait for it to end or cancel it.')
    this.compacting = new AbortController()
    try {
      const outcome = await compactor.compact('manual', { turn: this.turnNumber, step: 0, signal: this.compacting.signal, focus, keep: options.keep })
      // SessionStart listeners (hooks) learn of the compaction; context they inject waits for the next turn.
      if (changed(outcome)) await this.listeners.sessionStart(this, 'compact')
      await this.session.flush()
      return outcome
    } finally {
      this.compacting = null
    }
  }

  private reportCompaction(outcome: CompactionOutcome): void {
    this.notify(changed(outcome) ? 'info' : 'warning', outcome.message)
  }

  /** Adds an extension after creation (front ends that attach late). */
  use(extension: Extension<AgentApi>): void {
    this.listeners.add(extension)
  }

  async close(reason = 'exit'): Promise<void> {
    if (this.closed) return
    this.cancel()
    if (this.loop) await this.loop
    this.closed = true
    try {
      await this.listeners.sessionEnd(this, reason)
      this.unsubscribe()
      await this.session.close()
    } finally {
      // Tool processes and MCP servers are released even when the log's last write failed.
      await this.options.onClose?.()
    }
  }

  private emit(event: LiveEvent): void {
    // Notices raised before anyone listens (SessionStart hooks, MCP servers at startup) wait for the first listener.
    if (!this.live.size && event.type === 'notice' && this.earlyNotices.length < 100) this.earlyNotices.push(event)
    for (const listener of this.live) {
      try {
        listener(event)
      } catch {
        // A front end's rendering error must not break the turn; the log is unaffected.
      }
    }
  }

  private enqueue(verb: InboxItem['verb'], content: ContentInput, source: Source, meta?: JsonValue): string {
    if (this.closed) throw new Error('This agent is closed; open the session again to continue it.')
    const item: InboxItem = { id: randomUUID(), verb, content: toBlocks(content), source, ...(meta !== undefined ? { meta } : {}) }
    this.session.append('inbox/queued', { id: item.id, verb, content: item.content, source })
    this.inbox.push(item)
    if (verb !== 'inject') this.schedule()
    return item.id
  }

  private schedule(): void {
    if (this.loop || this.closed) return
    this.loop = this.drain().finally(() => {
      this.loop = null
      this.abort = null
      this.emit({ type: 'idle' })
      const waiters = this.idleWaiters
      this.idleWaiters = []
      for (const resolve of waiters) resolve(this.lastOutcome)
    })
  }

  /** Runs turns while inputs wait. A failed log write ends the run: no turn starts after it. */
  private async drain(): Promise<void> {
    while (!this.closed && !this.session.writeFailure && this.inbox.hasWaking()) {
      this.lastOutcome = await this.runTurn()
    }
    await this.flushUnlessFailed()
  }

  /** Flushes the log; once a write has failed, the turn's outcome already carries the failure, so it is not thrown again. */
  private async flushUnlessFailed(): Promise<void> {
    try {
      await this.session.flush()
    } catch (error) {
      if (error !== this.session.writeFailure) throw error
    }
  }

  /** One turn: `turn/start`, steps until the model stops asking for tools and nothing steers, `turn/end`. */
  private async runTurn(): Promise<TurnOutcome> {
    const turn = ++this.turnNumber
    this.abort = new AbortController()
    const signal = this.abort.signal
    this.session.append('turn/start', { turn })
    this.stopMessage = undefined
    this.interrupted = false
    let end: TurnEnd
    try {
      end = await this.runSteps(turn, signal)
      if (end.reason === 'aborted' && this.stopMessage !== undefined) {
        end = new TurnEnd('blocked', { code: 'stopped', message: this.stopMessage })
      } else if (end.reason === 'aborted' && this.interrupted) end = new TurnEnd('interrupted')
    } catch (error) {
      const message = error instanceof Error ? error.message : `Unexpected failure: ${String(error)}`
      const code = this.session.writeFailure ? 'write-failed' : error instanceof ListenerError ? 'listener' : 'internal'
      end = new TurnEnd('error', { code, message: this.session.writeFailure?.message ?? message })
    }
    this.session.append('turn/end', { turn, reason: end.reason, ...(end.error ? { error: end.error } : {}) })
    await this.flushUnlessFailed()
    // The turn's own end may be what could not be written: then the run failed, whatever the turn reached.
    const failure = this.session.writeFailure
    if (failure) return { turn, reason: 'error', message: failure.message }
    return { turn, reason: end.reason, ...(end.error ? { message: this.session.redact(end.error.message) } : {}) }
  }

  private async runSteps(turn: number, signal: AbortSignal): Promise<TurnEnd> {
    let lastAssistant: AssistantMessage | null = null
    let continuations = 0
    for (let step = 1; ; step++) {
      if (signal.aborted) return new TurnEnd('aborted')
      if (this.options.maxSteps !== undefined && step > this.options.maxSteps) return new TurnEnd('max-steps')

      const claimed = this.inbox.claim(step === 1)
      const entering: EnteringMessage[] = claimed.map((item) => ({
        id: item.id,
        type: item.verb === 'followUp' ? 'user/message' : item.verb === 'steer' ? 'steering/message' : 'context/message',
        content: item.content,
        source: item.source,
        ...(item.meta !== undefined ? { meta: item.meta } : {}),
      }))
      const pre = await this.listeners.preStep({ turn, step }, entering, this)
      if ('reject' in pre) {
        for (const item of claimed) this.session.append('inbox/dequeued', { id: item.id, reason: 'rejected' })
        this.notify('warning', pre.reject)
        return new TurnEnd('blocked', { code: 'blocked', message: pre.reject })
      }

      this.session.append('step/start', { turn, step })
      let stepOpen = true
      try {
        this.enter(pre.messages, turn)
        for (const item of claimed) this.session.append('inbox/dequeued', { id: item.id, reason: 'delivered' })

        const response = await this.request(turn, step, signal)
        if (response.end) return response.end
        lastAssistant = response.message

        const calls = toolCallsOf(response.message)
        if (response.finish === 'max-tokens') {
          const model = this.modelConfig.model
          return new TurnEnd('max-tokens', {
            code: 'max-tokens',
            message: `The answer hit the output limit before it finished; raise models.${model}.maxOutput in settings.json, or ask for a shorter answer.`,
          })
        }
        if (calls.length) {
          await runToolCalls(calls, {
            turn,
            step,
            session: this.session,
            tools: this.tools,
            state: this.options.toolState,
            listeners: this.listeners,
            agent: this,
            signal,
            asker: this.permissionAsker,
            onAsk: this.options.onPermissionAsked,
            suggestRule: this.options.suggestRule,
            allowAlways: this.options.allowAlways,
            permissionNeeded: this.options.permissionNeeded ?? defaultPermissionNeeded,
            emit: (event) => this.emit(event),
            concurrency: this.options.toolConcurrency ?? 4,
          })
        }
        this.session.append('step/end', { turn, step })
        stepOpen = false
        if (signal.aborted) return new TurnEnd('aborted')
        if (calls.length || this.inbox.hasForNextStep()) continue

        await this.listeners.turnStopping({ turn, lastAssistant, continuations }, this)
        if (this.inbox.hasForNextStep()) {
          continuations++
          continue
        }
        return new TurnEnd('completed')
      } finally {
        if (stepOpen) this.session.append('step/end', { turn, step })
      }
    }
  }

  /** Appends the step's entering messages: the only way prompts, steering and context reach the surface. */
  private enter(messages: readonly EnteringMessage[], turn: number): void {
    for (const m of messages) {
      const id = m.id ?? randomUUID()
      if (m.type === 'user/message') this.session.append('user/message', { id, content: m.content, source: m.source })
      else if (m.type === 'steering/message') {
        this.session.append('steering/message', { id, turn, content: m.content, source: m.source })
      } else {
        this.session.append('context/message', {
          id,
          content: m.content,
          source: m.source,
          ...(m.meta !== undefined ? { meta: m.meta } : {}),
        })
      }
    }
  }

  /** Logs the header when it changed, derives the request from the log, sends it (retrying per policy), logs the answer. */
  private async request(
    turn: number,
    step: number,
    signal: AbortSignal,
  ): Promise<{ end?: TurnEnd; message: AssistantMessage; finish?: FinishReason }> {
    const empty: AssistantMessage = { role: 'assistant', content: [] }
    let header: RequestHeader
    try {
      header = this.currentHeader()
    } catch (error) {
      // A model the catalog refuses (a retired id) fails here, before any request is sent.
      if (error instanceof ModelError) return { end: new TurnEnd('error', failure(error)), message: empty }
      throw error
    }
    let encoded = encodeRequest(this.adapter, buildRequest(header, this.session.messages()))
    const compactor = this.options.compactor
    const promptTokens = Math.ceil(encoded.bytes / 4)
    if (compactor && promptTokens > compactor.threshold() && this.autoCompactionFailedIn !== turn) {
      const outcome = await compactor.compact('auto', { turn, step, signal, promptTokens })
      this.reportCompaction(outcome)
      // After a failed or useless attempt the turn goes on uncompacted and the next turn tries again, so an outage
      // costs one summary request per turn, not one per step. A context-too-long error still compacts at once.
      this.autoCompactionFailedIn = changed(outcome) ? 0 : turn
      if (changed(outcome)) {
        await this.reenterAfterCompaction(turn, step)
        encoded = encodeRequest(this.adapter, buildRequest(header, this.session.messages()))
      }
    }
    await this.session.flush()
    this.session.append('request/sent', { turn, step, sha256: encoded.sha256, bytes: encoded.bytes })
    let body = encoded.body
    let overflowHandled = false
    let passbackRepaired = false

    for (let retries = 0; ; retries++) {
      const result = await this.stream(body, turn, step, signal)
      if (result.finish === 'aborted' || signal.aborted) {
        const kept = result.message.content.filter((b) => b.type !== 'tool-call')
        if (kept.length) {
          this.session.append('assistant/message', {
            turn,
            step,
            message: { role: 'assistant', content: kept },
            interrupted: true,
            ...(result.usage ? { usage: result.usage } : {}),
          })
        }
        return { end: new TurnEnd('aborted'), message: empty }
      }
      if (result.finish !== 'error') {
        this.session.append('assistant/message', {
          turn,
          step,
          message: result.message,
          ...(result.usage ? { usage: result.usage } : {}),
        })
        return { message: result.message, finish: result.finish }
      }
      const error = result.error ?? new ModelError('empty-response', 'DeepSeek ended the response without saying why; try again.')
      if (error.code === 'context-too-long' && compactor && !overflowHandled) {
        // Compact, then retry once with the smaller request.
        overflowHandled = true
        const outcome = await compactor.compact('overflow', { turn, step, signal })
        this.reportCompaction(outcome)
        if (changed(outcome)) {
          await this.reenterAfterCompaction(turn, step)
          const again = encodeRequest(this.adapter, buildRequest(header, this.session.messages()))
          await this.session.flush()
          this.session.append('request/sent', { turn, step, sha256: again.sha256, bytes: again.bytes })
          body = again.body
          continue
        }
      }
      if (error.code === 'reasoning-passback' && !passbackRepaired) {
        // Repair once: send reasoning with every assistant message from now on (a new header says so), then retry.
        passbackRepaired = true
        this.modelConfig = { ...this.modelConfig, passback: 'every-assistant' }
        header = this.currentHeader('repair')
        const again = encodeRequest(this.adapter, buildRequest(header, this.session.messages()))
        this.session.append('llm/retry', { turn, step, attempt: retries + 1, delayMs: 0, error: failure(error) })
        this.notify('warning', 'DeepSeek asked for reasoning to be passed back; resending once with reasoning on every assistant message.')
        await this.session.flush()
        this.session.append('request/sent', { turn, step, sha256: again.sha256, bytes: again.bytes })
        body = again.body
        continue
      }
      const delay = retryDelay(error, retries, this.options.random)
      if (delay === null) return { end: new TurnEnd('error', failure(error)), message: empty }
      this.session.append('llm/retry', { turn, step, attempt: retries + 1, delayMs: delay, error: failure(error) })
      this.notify('warning', `${error.message} Retrying in ${(delay / 1000).toFixed(1)} s.`)
      await (this.options.sleep ?? defaultSleep)(delay, signal)
      if (signal.aborted) return { end: new TurnEnd('aborted'), message: empty }
    }
  }

  /**
   * After a compaction inside a step, lets `preStep` listeners (with nothing entering) put back what they keep on the
   * surface and the summary shadowed — workspace instructions, session facts — so the very next request carries them.
   * The step's own messages have already entered, so a rejection here is only reported.
   */
  /**
   * After a compaction inside a step: SessionStart listeners run with source `compact` (hooks may inject context),
   * then the preStep listeners run once more over that context, so what the summary shadowed (workspace
   * instructions, runtime facts) is sent again with the very next request.
   */
  private async reenterAfterCompaction(turn: number, step: number): Promise<void> {
    await this.listeners.sessionStart(this, 'compact')
    const claimed = this.inbox.claimContext()
    const entering: EnteringMessage[] = claimed.map((item) => ({
      id: item.id,
      type: 'context/message',
      content: item.content,
      source: item.source,
      ...(item.meta !== undefined ? { meta: item.meta } : {}),
    }))
    const pre = await this.listeners.preStep({ turn, step }, entering, this)
    if ('reject' in pre) {
      this.notify('warning', pre.reject)
      this.enter(entering, turn)
    } else this.enter(pre.messages, turn)
    for (const item of claimed) this.session.append('inbox/dequeued', { id: item.id, reason: 'delivered' })
  }

  private currentHeader(changedReason = 'changed'): RequestHeader {
    const config = this.adapter.headerConfig?.(this.modelConfig) ?? this.modelConfig
    const fields = { config, system: this.system, tools: this.schemas, wire: this.adapter.wire }
    const last = this.session.last('request/header')?.data
    if (!this.headerLogged) {
      this.headerLogged = true
      const reason = last ? (this.options.start === 'fork' ? 'fork' : 'resume') : 'initial'
      this.session.append('request/header', { reason, ...fields })
      return { reason, ...fields }
    }
    if (last && sameHeader(last, fields)) return last
    this.session.append('request/header', { reason: changedReason, ...fields })
    return { reason: changedReason, ...fields }
  }

  private async stream(body: string, turn: number, step: number, signal: AbortSignal) {
    const assembler = new ResponseAssembler()
    for await (const chunk of this.adapter.stream(body, { signal })) {
      assembler.push(chunk)
      if (chunk.type === 'text-delta') this.emit({ type: 'text-delta', turn, step, text: chunk.text })
      else if (chunk.type === 'reasoning-delta') this.emit({ type: 'reasoning-delta', turn, step, text: chunk.text })
      else if (chunk.type === 'tool-call-delta') this.emit({ ...chunk, turn, step })
    }
    return assembler.result()
  }
}

const changed = (outcome: CompactionOutcome): boolean => outcome.outcome === 'replaced' || outcome.outcome === 'trimmed'

/** A model error as the log keeps it. Context-too-long names the remedy. */
function failure(error: ModelError): LoggedError {
  const logged = error.toJSON()
  if (error.code === 'context-too-long' && !/compact/i.test(logged.message)) {
    logged.message = `${logged.message} Run /compact (or start a new session) to shrink the conversation.`
  }
  return logged as LoggedError
}

