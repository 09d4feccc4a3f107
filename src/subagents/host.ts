import { Agent } from '../agent/agent.js'
import type { Extension } from '../agent/extensions.js'
import type { AgentApi, PermissionAsker } from '../agent/types.js'
import type { ModelAdapter } from '../llm/adapter.js'
import type { ModelOverride } from '../llm/catalog.js'
import type { AnyEvent } from '../session/events.js'
import type { CommitGuard } from '../session/session.js'
import { Session } from '../session/session.js'
import type { SessionStore } from '../store/store.js'
import { toolSchemas } from '../tools/registry.js'
import { errorOutput, type AnyTool, type ToolContext, type ToolOutput, type ToolState } from '../tools/tool.js'
import { childSystemPrompt, type AgentType } from './agent-types.js'
import { summarizeChild, type ChildSummary } from './child-log.js'
import type { TreeBudget } from './budget.js'
import { Pool } from './pool.js'
import { readOnlyBashTool } from './read-only-bash.js'

/** Where the composition root leaves the host in a tool state, for the `task` tool to find. */
export const SUBAGENT_HOST_KEY = 'subagents.host'

/** What the `task` tool asks for. */
export interface TaskRequest {
  description: string
  prompt: string
  subagent_type?: string
}

/** SubagentStart / SubagentStop hooks, run in the parent's session (src/hooks). */
export interface SubagentHooks {
  /** Context the hooks add for the child, each entry one `context/message` before its first request. */
  start(info: { agentId: string; agentType: string }): Promise<string[]>
  /** A reason to continue the child (a Stop-style block, within the Stop limits), or undefined to let it finish. */
  stop(info: { agentId: string; agentType: string; transcriptPath: string | undefined; continuations: number; lastMessage: string }): Promise<string | undefined>
}

/** The parent, as the host reads it: live, so a mode or model change applies to children started afterwards. */
export interface ParentView {
  readonly session: Session
  readonly config: AgentApi['config']
  readonly permissionMode: AgentApi['permissionMode']
  readonly toolList: readonly AnyTool[]
  readonly permissionAsker?: PermissionAsker
}

export interface SubagentHostOptions {
  store: SessionStore
  adapter: ModelAdapter
  parent: () => ParentView
  /** Built-in and file-defined types, by name. */
  types: ReadonlyMap<string, AgentType>
  /** How deep the parent is: 0 for a session a person started. */
  depth: number
  /** Children at this depth get no `task` tool. Default 1: children cannot start children. */
  maxDepth: number
  /** How many children of this parent run at once (`parallel` is the width of a nested host's own pool). */
  pool: Pool
  parallel: number
  /** Shared by the whole tree: children per turn and per run, and the tree's model requests (`--max-turns`). */
  budget: TreeBudget
  /** Model requests of one child's turn (`subagents.maxSteps`). */
  childSteps: number
  /** Told, once per distinct sentence, when a limit refuses a child: the user reads what bounded the run. */
  onLimit?: (message: string) => void
  /**
   * Why a type may not run on the model it names instead of `current` (a workspace agent file in an untrusted
   * workspace asking for a dearer model), or undefined when it may. A refused child runs on `current`.
   */
  refuseModel?: (type: AgentType, model: string, current: string) => string | undefined
  /** The extensions a child runs with (the parent's permission policy, PreToolUse hooks, workspace instructions). */
  extensions: (child: Session) => Extension[]
  toolState: (childId: string) => ToolState
  disposeToolState: (state: ToolState) => Promise<void>
  commitGuard?: CommitGuard
  modelOverrides?: Record<string, ModelOverride>
  hooks?: SubagentHooks
  /** Told of every child as it starts, at any depth (shared by nested hosts): front ends subscribe to its live events. */
  observers?: Set<(child: RunningChild) => void>
}

/** A child that has just started: its agent (subscribe for its live events) and the `task` call that runs it. */
export interface RunningChild {
  agent: Agent
  callId: string
  type: string
  depth: number
}

/**
 * Runs children for one parent agent. A child is an ordinary session in the same store whose header names the
 * parent session and the `task` call; the parent logs `subagent/start` (flushed before the child's first request, so
 * crash repair can find the child) and `subagent/end`. Invariants: a child's tools are the parent's tools cut to its
 * type (never more); the parent's permission policy and mode judge every child call; the child's questions reach the
 * parent's front end, labelled with the child; cancelling the parent's turn cancels the child.
 */
export class SubagentHost {
  /** Running children by session id, for front ends that steer one (RPC `steer` with a child id). */
  readonly running = new Map<string, Agent>()

  constructor(private readonly options: SubagentHostOptions) {
    this.options = { ...options, observers: options.observers ?? new Set() }
  }

  /**
   * Calls `listener` with every child started from now on, before its first request (stream-json output, web UI).
   * A listener that throws is dropped from the call, never failing the child. Returns the unsubscribe function.
   */
  onChild(listener: (child: RunningChild) => void): () => void {
    const observers = this.options.observers as Set<(child: RunningChild) => void>
    observers.add(listener)
    return () => observers.delete(listener)
  }

  get types(): ReadonlyMap<string, AgentType> {
    return this.options.types
  }

  async run(request: TaskRequest, ctx: ToolContext): Promise<ToolOutput> {
    const name = request.subagent_type ?? 'general'
    const type = this.options.types.get(name)
    if (!type) {
      const names = [...this.options.types.keys()].sort().join(', ')
      return errorOutput(`Error: there is no subagent type "${name}". Types: ${names}.`)
    }
    const refused = this.options.budget.claimChild()
    if (refused) {
      this.options.onLimit?.(refused.replace(/^Error: /, 'Subagent limit: '))
      return errorOutput(refused)
    }
    let release: () => void
    try {
      release = await this.options.pool.acquire(ctx.signal)
    } catch {
      return errorOutput('Cancelled by the user before this subagent started; nothing was done.')
    }
    try {
      return await this.runChild(type, request, ctx)
    } finally {
      release()
    }
  }

  private async runChild(type: AgentType, request: TaskRequest, ctx: ToolContext): Promise<ToolOutput> {
    if (ctx.signal.aborted) return errorOutput('Cancelled by the user before this subagent started; nothing was done.')
    const parent = this.options.parent()
    const child = await Session.create(this.options.store, {
      cwd: parent.session.cwd,
      subagent: { parent: parent.session.id, callId: ctx.callId, agent: type.name },
    })
    if (this.options.commitGuard) child.setCommitGuard(this.options.commitGuard)
    parent.session.append('subagent/start', { callId: ctx.callId, child: child.id, agent: type.name, description: request.description })
    await parent.session.flush()

    let summary: ChildSummary
    try {
      summary = await this.drive(type, request, ctx, parent, child)
    } catch (error) {
      // The child could not be started or driven (a listener failed, a write failed): its log keeps what it holds,
      // and the parent's `subagent/end` still closes the pair.
      const message = error instanceof Error ? error.message : String(error)
      summary = { ...summarizeChild(child.events, this.options.modelOverrides), outcome: 'error', error: message }
    }
    parent.session.append('subagent/end', {
      callId: ctx.callId,
      child: child.id,
      outcome: summary.outcome,
      usage: summary.usage,
      cost: summary.cost,
    })
    return childOutput(summary, child.id, type.name)
  }

  /** Creates the child's agent over `child`, gives it the job, waits for its answer, and closes it. */
  private async drive(type: AgentType, request: TaskRequest, ctx: ToolContext, parent: ParentView, child: Session): Promise<ChildSummary> {
    const toolState = this.options.toolState(child.id)
    let agent: Agent
    try {
      agent = await Agent.create({
        session: child,
        adapter: this.options.adapter,
        tools: this.childTools(type, parent.toolList),
        schemas: toolSchemas,
        system: childSystemPrompt(type, parent.session.cwd),
        config: { ...parent.config, model: this.modelOf(type, parent.config.model) },
        toolState,
        permissionMode: parent.permissionMode,
        maxSteps: this.options.childSteps,
        stepBudget: this.options.budget.child,
        extensions: this.options.extensions(child),
        onClose: () => this.options.disposeToolState(toolState),
      })
    } catch (error) {
      await child.close().catch(() => {
        // Releasing the lease of a child that never ran: a failure here leaves a stale lease the next opener takes over.
      })
      await this.options.disposeToolState(toolState)
      throw error
    }
    if (this.options.depth + 1 < this.options.maxDepth) {
      const nested = new SubagentHost({ ...this.options, parent: () => agent, depth: this.options.depth + 1, pool: new Pool(this.options.parallel) })
      toolState.extra.set(SUBAGENT_HOST_KEY, nested)
    }
    agent.permissionAsker = labelledAsker(() => this.options.parent().permissionAsker, type, request.description, child.id)
    this.running.set(child.id, agent)
    for (const observe of this.options.observers ?? []) {
      try {
        observe({ agent, callId: ctx.callId, type: type.name, depth: this.options.depth + 1 })
      } catch {
        // An observer's failure is its own (a front end's rendering); the child runs regardless.
      }
    }
    const stopProgress = reportProgress(agent, type, ctx)
    const cancel = (): void => agent.cancel()
    ctx.signal.addEventListener('abort', cancel, { once: true })
    try {
      for (const text of (await this.options.hooks?.start({ agentId: child.id, agentType: type.name })) ?? []) {
        agent.inject(text, { kind: 'hook', event: 'SubagentStart' })
      }
      agent.followUp(request.prompt, { kind: 'subagent', parent: parent.session.id, callId: ctx.callId })
      if (ctx.signal.aborted) agent.cancel()
      return await this.finish(agent, child, type, ctx)
    } finally {
      ctx.signal.removeEventListener('abort', cancel)
      stopProgress()
      this.running.delete(child.id)
      await agent.close('subagent-done').catch(() => {
        // The child's last write failed: its log keeps what was durable, and the summary reads what it holds.
      })
    }
  }

  /** Waits for the child's turn to end; a SubagentStop block steers it on (the hooks' Stop limits cap how often). */
  private async finish(agent: Agent, child: Session, type: AgentType, ctx: ToolContext): Promise<ChildSummary> {
    for (let continuations = 0; ; continuations++) {
      await agent.whenIdle()
      const summary = summarizeChild(child.events, this.options.modelOverrides)
      if (summary.outcome !== 'completed' || ctx.signal.aborted || !this.options.hooks) return summary
      const reason = await this.options.hooks.stop({
        agentId: child.id,
        agentType: type.name,
        transcriptPath: child.path,
        continuations,
        lastMessage: summary.answer ?? '',
      })
      if (reason === undefined) return summary
      agent.steer(reason, { kind: 'hook', event: 'SubagentStop' })
    }
  }

  /** The model a child of `type` runs on: the type's own, unless it may not choose it here (then the parent's). */
  private modelOf(type: AgentType, current: string): string {
    if (!type.model || type.model === current) return current
    const refused = this.options.refuseModel?.(type, type.model, current)
    if (!refused) return type.model
    this.options.onLimit?.(refused)
    return current
  }

  private childTools(type: AgentType, parentTools: readonly AnyTool[]): AnyTool[] {
    return toolsOfType(type, parentTools, this.options.depth + 1 < this.options.maxDepth)
  }
}

/** The parent's tools cut to the type's list; `bash` only reads for read-only types; `task` only when `nests`. */
export function toolsOfType(type: AgentType, parentTools: readonly AnyTool[], nests: boolean): AnyTool[] {
  const allowed = type.tools ? new Set(type.tools) : undefined
  return parentTools
    .filter((t) => (!allowed || allowed.has(t.name)) && (nests || t.name !== 'task'))
    .map((t) => (t.name === 'bash' && type.readOnlyBash ? readOnlyBashTool : t))
}

/** What the parent model reads: the child's last answer, or one sentence saying why there is none. */
function childOutput(summary: ChildSummary, child: string, agent: string): ToolOutput {
  const meta = { child, agent, outcome: summary.outcome, usage: { ...summary.usage }, cost: summary.cost }
  if (summary.outcome === 'completed') {
    return { content: [{ type: 'text', text: summary.answer ?? '(The subagent finished without an answer.)' }], meta }
  }
  const partial = summary.answer ? `\nIts last message:\n${summary.answer}` : ''
  const why =
    summary.outcome === 'aborted' || summary.outcome === 'interrupted'
      ? 'The subagent was cancelled before it finished.'
      : `The subagent stopped (${summary.outcome})${summary.error ? `: ${summary.error}` : '.'}`
  return { content: [{ type: 'text', text: `${why}${partial}` }], isError: true, meta }
}

/** The child's permission questions go to the parent's front end (read at ask time), the reason naming the child. */
function labelledAsker(parent: () => PermissionAsker | undefined, type: AgentType, description: string, child: string): PermissionAsker | undefined {
  return async (request, signal) => {
    const ask = parent()
    if (!ask) return { outcome: 'unanswered' }
    const subagent = { agent: type.name, description, session: child }
    return ask({ ...request, reason: `Subagent ${type.name} (${description}, session ${child.slice(0, 8)}): ${request.reason}`, subagent }, signal)
  }
}

/** One progress line per child tool call and per answer, streamed as the `task` call's progress (TUI card, ACP update). */
function reportProgress(agent: Agent, type: AgentType, ctx: ToolContext): () => void {
  return agent.subscribe((live) => {
    if (live.type !== 'event') return
    const event = live.event as AnyEvent
    if (event.type === 'tool/call') ctx.progress?.(`[${type.name}] ${event.data.name} ${event.data.arguments.slice(0, 120)}\n`)
    else if (event.type === 'turn/end') ctx.progress?.(`[${type.name}] ${event.data.reason}\n`)
  })
}
