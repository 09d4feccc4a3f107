import { randomUUID } from 'node:crypto'
import type { ModelAdapter, ModelConfig } from '../llm/adapter.js'
import { ModelError } from '../llm/errors.js'
import type { AssistantMessage, ToolSchema } from '../llm/messages.js'
import { toolCallsOf } from '../llm/messages.js'
import type { JsonValue, LoggedError, Source, TurnEndReason } from '../session/events.js'
import { buildRequest, encodeRequest, type RequestHeader } from '../session/request.js'
import type { Session } from '../session/session.js'
import type { AnyTool, ToolState } from '../tools/tool.js'
import { enter, enteringOf, replacedSince } from './entering.js'
import { extensionContext } from './extension-context.js'
import type { CommandInput, CommandResult, Extension, ExtensionContext } from './extensions.js'
import { HeaderLog } from './header.js'
import { Inbox, type InboxItem } from './inbox.js'
import { ListenerError, Listeners } from './listeners.js'
import { LiveBus } from './live.js'
import type { AgentOptions } from './options.js'
import { defaultSleep, logged, sendRequest, type Encoded, type Sent } from './send.js'
import { runToolCalls } from './tool-runner.js'
import type { AgentApi, ContentInput, LiveEvent, PermissionAsker, PermissionMode, TurnOutcome } from './types.js'
import { toBlocks } from './types.js'

export type { AgentOptions } from './options.js'

/** How a turn ends, with the logged error for `turn/end`. */
type TurnEnd = { reason: TurnEndReason; error?: LoggedError }

/**
 * What the agent is doing. A running turn may carry how it was told to stop: `interrupted` (the process is going
 * away on a signal) or `blocked` (`stopTurn`); a plain cancel leaves it unset and the turn ends `aborted`.
 */
type Phase =
  | { is: 'idle' }
  | { is: 'turn'; abort: AbortController; stop?: { reason: 'interrupted' } | { reason: 'blocked'; message: string } }
  | { is: 'command'; abort: AbortController }
  | { is: 'closed' }

/**
 * The agent: one session, one inbox, one turn at a time. The whole turn/step flow of DESIGN section 3 is `runTurn`
 * and `runSteps` below; tool calls are run by tool-runner.ts, requests sent by send.ts. Every input reaches the
 * model only through the log; extensions (hooks, context, permissions, compaction) attach through `Listeners`.
 */
export class Agent implements AgentApi {
  readonly session: Session
  /** The front end's permission prompt (the one seam through which a person is asked); undefined means ask is deny. */
  permissionAsker?: PermissionAsker
  private readonly adapter: ModelAdapter
  private tools = new Map<string, AnyTool>()
  private schemas: ToolSchema[] = []
  private modelConfig: ModelConfig
  private mode: PermissionMode
  /** What every extension point receives: the narrow view of this agent. */
  private readonly context: ExtensionContext
  private readonly listeners: Listeners
  private readonly inbox: Inbox
  private readonly headers: HeaderLog
  private readonly live = new LiveBus()
  private readonly options: AgentOptions
  private phase: Phase = { is: 'idle' }
  /** Runs turns while inputs wait; null while idle. */
  private loop: Promise<void> | null = null
  private turnNumber: number
  private lastOutcome: TurnOutcome | undefined
  private idleWaiters: ((outcome: TurnOutcome | undefined) => void)[] = []
  private readonly unsubscribe: () => void

  private constructor(options: AgentOptions) {
    this.options = options
    this.session = options.session
    this.adapter = options.adapter
    this.setTools(options.tools)
    this.modelConfig = options.config
    this.mode = options.permissionMode ?? 'default'
    this.context = extensionContext(this)
    this.listeners = new Listeners(this.context, (message) => this.notify('warning', message))
    for (const ext of options.extensions ?? []) this.listeners.add(ext)
    this.inbox = Inbox.fromEvents(this.session.events)
    this.headers = new HeaderLog(this.session, this.adapter, options.start === 'fork')
    this.turnNumber = this.session.last('turn/start')?.data.turn ?? 0
    this.unsubscribe = this.session.subscribe((event) => {
      this.live.emit({ type: 'event', event })
      this.listeners.event(event)
    })
  }

  /** Creates the agent, runs `sessionStart` listeners, and resumes delivery of anything still queued in the log. */
  static async create(options: AgentOptions): Promise<Agent> {
    const agent = new Agent(options)
    await agent.listeners.sessionStart(options.start ?? 'startup')
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
    return this.loop !== null || this.phase.is === 'command'
  }
  /** Aborted when the running turn or command is cancelled; undefined while idle. */
  get activeSignal(): AbortSignal | undefined {
    return this.phase.is === 'turn' || this.phase.is === 'command' ? this.phase.abort.signal : undefined
  }
  /** The queued inputs not yet delivered, oldest first. */
  get queued(): readonly InboxItem[] {
    return this.inbox.list()
  }
  /** The tools' shared state (their job table, read files): front ends read it, e.g. `/jobs`. */
  get toolState(): ToolState {
    return this.options.toolState
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
    if (this.phase.is === 'turn' || this.phase.is === 'command') this.phase.abort.abort()
  }

  /**
   * Ends the running turn as `interrupted`: the process is going away on a signal. Otherwise exactly like `cancel`
   * (running tools' process groups are killed; the turn's end is committed).
   */
  interrupt(): void {
    if (this.phase.is === 'turn' && !this.phase.abort.signal.aborted) this.phase.stop = { reason: 'interrupted' }
    this.cancel()
  }

  stopTurn(message: string): void {
    if (this.phase.is !== 'turn' || this.phase.abort.signal.aborted) return
    this.phase.stop = { reason: 'blocked', message }
    this.phase.abort.abort()
  }

  whenIdle(): Promise<TurnOutcome | undefined> {
    if (!this.loop) return Promise.resolve(this.lastOutcome)
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  subscribe(listener: (event: LiveEvent) => void): () => void {
    return this.live.subscribe(listener)
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
    this.schemas = this.options.schemas(tools)
  }

  notify(level: 'info' | 'warning' | 'error', message: string): void {
    // Notices often quote an error body; a secret in one must not reach a front end either.
    this.live.emit({ type: 'notice', level, message: this.session.redact(message) })
  }

  /** The `compact` command (`/compact`, RPC `compact`, ACP): everything but the newest `keep` exchanges is summarized. */
  compact(focus?: string, options: { keep?: number } = {}): Promise<CommandResult> {
    return this.runCommand('compact', { text: focus, keep: options.keep })
  }

  /** Inputs that arrive while a command runs wait for it: the turn they open starts when it ends. */
  async runCommand(name: string, input: CommandInput = {}): Promise<CommandResult> {
    const command = this.listeners.command(name)
    if (!command) return { outcome: 'nothing', message: `The ${name} command is not available in this session.` }
    if (this.busy) throw new Error(`Cannot ${name} while a turn runs; wait for it to end or cancel it.`)
    if (this.phase.is === 'closed') throw new Error('This agent is closed; open the session again to continue it.')
    const abort = new AbortController()
    this.phase = { is: 'command', abort }
    const mark = this.session.length
    try {
      const result = await command(input, abort.signal, this.context)
      // The session goes on from a replaced surface: sessionStart listeners (hooks) learn of it; the context they
      // inject waits for the next turn.
      if (replacedSince(this.session, mark)) await this.listeners.sessionStart('compact')
      await this.session.flush()
      return result
    } finally {
      if (this.phase.is === 'command') this.phase = { is: 'idle' }
      if (this.inbox.hasWaking()) this.schedule()
    }
  }

  /** Adds an extension after creation (front ends that attach late). */
  use(extension: Extension): void {
    this.listeners.add(extension)
  }

  async close(reason = 'exit'): Promise<void> {
    if (this.phase.is === 'closed') return
    this.cancel()
    if (this.loop) await this.loop
    this.phase = { is: 'closed' }
    try {
      await this.listeners.sessionEnd(reason)
      this.unsubscribe()
      await this.session.close()
    } finally {
      // Tool processes and MCP servers are released even when the log's last write failed.
      await this.options.onClose?.()
    }
  }

  private enqueue(verb: InboxItem['verb'], content: ContentInput, source: Source, meta?: JsonValue): string {
    if (this.phase.is === 'closed') throw new Error('This agent is closed; open the session again to continue it.')
    const item: InboxItem = { id: randomUUID(), verb, content: toBlocks(content), source, ...(meta !== undefined ? { meta } : {}) }
    this.session.append('inbox/queued', { id: item.id, verb, content: item.content, source })
    this.inbox.push(item)
    if (verb !== 'inject') this.schedule()
    return item.id
  }

  private schedule(): void {
    if (this.loop || this.phase.is === 'closed' || this.phase.is === 'command') return
    this.loop = this.drain().finally(() => {
      this.loop = null
      if (this.phase.is === 'turn') this.phase = { is: 'idle' }
      this.live.emit({ type: 'idle' })
      const waiters = this.idleWaiters
      this.idleWaiters = []
      for (const resolve of waiters) resolve(this.lastOutcome)
    })
  }

  /** Runs turns while inputs wait. A failed log write ends the run: no turn starts after it. */
  private async drain(): Promise<void> {
    while (this.phase.is !== 'closed' && !this.session.writeFailure && this.inbox.hasWaking()) {
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
    const phase: Phase & { is: 'turn' } = { is: 'turn', abort: new AbortController() }
    this.phase = phase
    this.session.append('turn/start', { turn })
    let end: TurnEnd
    try {
      end = await this.runSteps(turn, phase.abort.signal)
      if (end.reason === 'aborted' && phase.stop?.reason === 'blocked') end = { reason: 'blocked', error: { code: 'stopped', message: phase.stop.message } }
      else if (end.reason === 'aborted' && phase.stop?.reason === 'interrupted') end = { reason: 'interrupted' }
    } catch (error) {
      const message = error instanceof Error ? error.message : `Unexpected failure: ${String(error)}`
      const code = this.session.writeFailure ? 'write-failed' : error instanceof ListenerError ? 'listener' : 'internal'
      end = { reason: 'error', error: { code, message: this.session.writeFailure?.message ?? message } }
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
      if (signal.aborted) return { reason: 'aborted' }
      if (this.options.maxSteps !== undefined && step > this.options.maxSteps) return { reason: 'max-steps' }
      if (this.options.stepBudget && !this.options.stepBudget.take(step)) return { reason: 'max-steps' }
      const spent = this.options.budget?.exceeded(this.session.events)
      if (spent) return { reason: 'max-steps', error: { code: 'budget', message: spent } }

      const claimed = this.inbox.claim(step === 1)
      const pre = await this.listeners.preStep({ turn, step }, claimed.map(enteringOf))
      if ('reject' in pre) {
        for (const item of claimed) this.session.append('inbox/dequeued', { id: item.id, reason: 'rejected' })
        this.notify('warning', pre.reject)
        return { reason: 'blocked', error: { code: 'blocked', message: pre.reject } }
      }

      this.session.append('step/start', { turn, step })
      let stepOpen = true
      try {
        enter(this.session, pre.messages, turn)
        for (const item of claimed) this.session.append('inbox/dequeued', { id: item.id, reason: 'delivered' })

        const sent = await this.request(turn, step, signal)
        if (sent.kind === 'aborted') return { reason: 'aborted' }
        if (sent.kind === 'failed') return { reason: 'error', error: sent.error }
        lastAssistant = sent.message

        const calls = toolCallsOf(sent.message)
        if (sent.finish === 'max-tokens') {
          const message = `The answer hit the output limit before it finished; raise models.${this.modelConfig.model}.maxOutput in settings.json, or ask for a shorter answer.`
          return { reason: 'max-tokens', error: { code: 'max-tokens', message } }
        }
        if (calls.length) {
          await runToolCalls(calls, {
            turn,
            step,
            session: this.session,
            tools: this.tools,
            state: this.options.toolState,
            listeners: this.listeners,
            signal,
            asker: this.permissionAsker,
            permissionNeeded: this.options.permissionNeeded,
            emit: (event) => this.live.emit(event),
            concurrency: this.options.toolConcurrency ?? 4,
          })
        }
        this.session.append('step/end', { turn, step })
        stepOpen = false
        if (signal.aborted) return { reason: 'aborted' }
        if (calls.length || this.inbox.hasForNextStep()) continue

        await this.listeners.turnStopping({ turn, lastAssistant, continuations })
        if (this.inbox.hasForNextStep()) {
          continuations++
          continue
        }
        return { reason: 'completed' }
      } finally {
        if (stepOpen) this.session.append('step/end', { turn, step })
      }
    }
  }

  /**
   * Logs the header when it changed, derives the request from the log, lets `beforeRequest` listeners act on it,
   * then sends it. A failure goes to the `requestFailed` listeners, then to the one passback repair, then to the
   * retry policy. Whenever the surface was replaced after this step's messages entered, `reenter` runs first.
   */
  private async request(turn: number, step: number, signal: AbortSignal): Promise<Sent> {
    let header: RequestHeader
    try {
      header = this.currentHeader()
    } catch (error) {
      // A model the catalog refuses (a retired id) fails here, before any request is sent.
      if (error instanceof ModelError) return { kind: 'failed', error: logged(error) }
      throw error
    }
    const derive = (): Encoded => encodeRequest(this.adapter, buildRequest(header, this.session.messages()))
    let mark = this.session.length
    let encoded = derive()
    await this.listeners.beforeRequest({ turn, step, promptTokens: Math.ceil(encoded.bytes / 4), signal })
    if (await this.reenter(turn, step, mark)) encoded = derive()

    return sendRequest(encoded, {
      session: this.session,
      adapter: this.adapter,
      turn,
      step,
      signal,
      emit: (event) => this.live.emit(event),
      notify: (level, message) => this.notify(level, message),
      sleep: this.options.sleep ?? defaultSleep,
      random: this.options.random,
      recover: async (error, attempt) => {
        mark = this.session.length
        if (await this.listeners.requestFailed({ turn, step, error, attempt, signal })) {
          await this.reenter(turn, step, mark)
          return derive()
        }
        return null
      },
      // Send reasoning with every assistant message from now on; a new header says so.
      repairPassback: () => {
        this.modelConfig = { ...this.modelConfig, passback: 'every-assistant' }
        header = this.currentHeader('repair')
        return derive()
      },
    })
  }

  /**
   * The loop's one rule for extensions that replace the surface (compaction): when the surface was replaced after
   * `mark`, the session goes on from the replaced surface, so `sessionStart` listeners run with source `compact`
   * (hooks may inject context), then `preStep` runs once more over the context injected meanwhile — what the
   * replacement shadowed (workspace instructions, runtime facts) is entered again before the request is derived.
   * The step's own messages have already entered, so a rejection here is only reported. True when it ran.
   */
  private async reenter(turn: number, step: number, mark: number): Promise<boolean> {
    if (!replacedSince(this.session, mark)) return false
    await this.listeners.sessionStart('compact')
    const claimed = this.inbox.claimContext()
    const messages = claimed.map(enteringOf)
    const pre = await this.listeners.preStep({ turn, step }, messages)
    if ('reject' in pre) {
      this.notify('warning', pre.reject)
      enter(this.session, messages, turn)
    } else enter(this.session, pre.messages, turn)
    for (const item of claimed) this.session.append('inbox/dequeued', { id: item.id, reason: 'delivered' })
    return true
  }

  private currentHeader(changedReason?: string): RequestHeader {
    return this.headers.current({ config: this.modelConfig, system: this.options.system, tools: this.schemas }, changedReason)
  }
}
