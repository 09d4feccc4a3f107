import { RequestError, type AgentContext, type ContentBlock, type PromptResponse, type SessionUpdate, type ToolCallContent } from '@agentclientprotocol/sdk'
import type { LiveEvent } from '../agent/types.js'
import type { SessionEvent, LoggedError, TurnEndReason } from '../session/events.js'
import type { AcpAgent } from './agent-port.js'
import { promptToInput } from './content.js'
import { isPermissionMode, stopReasonFor } from './modes.js'
import { editorPermissionAsker } from './permission.js'
import { acpCommands, parseCommand, runCommand } from './slash-commands.js'
import { UpdateTranslator, type StepDiffJob } from './updates.js'
import type { SnapshotFiles } from '../checkpoints/file-at.js'
import { stepFiles } from '../checkpoints/step-diff.js'
import { changesLine, DIFF_FILES, stepDiffContent } from './step-diff-content.js'
import { resolve } from 'node:path'
import { liveToolLookup } from '../frontend/render/index.js'

/** What the connection tells each session about the client and the model. */
export interface AcpSessionOptions {
  /** The model accepts images (advertised in `initialize`). */
  images: boolean
  /** The client advertised `session.notices`; otherwise notices go to the log. */
  notices: boolean
  log: (line: string) => void
  /** Reads the workspace's checkpoint snapshots, for the diffs of what a step changed; without it the paths are listed. */
  snapshotFiles?: (cwd: string) => SnapshotFiles
}

interface TurnEnd {
  reason: TurnEndReason
  error?: LoggedError
}

/** A `session/prompt` waiting for its answer. */
interface PendingPrompt {
  /** The inbox id of the prompt's message. */
  messageId: string
  /** The turn the message entered; set when it is delivered. */
  turn?: number
  /** `cancels` when the prompt arrived: a later `session/cancel` makes its answer `cancelled`. */
  cancelsAtStart: number
  settle: (end: TurnEnd | undefined) => void
}

const ACP_SOURCE = { kind: 'acp' }

/**
 * One ACP session: a Rein agent and the editor that drives it. Live events become `session/update`
 * notifications, sent strictly in order; a prompt is answered only after every update of its turn has been sent.
 *
 * A prompt that arrives while the agent is idle is a follow-up (its own turn). One that arrives while a turn runs
 * is steering: it enters the running turn at the next step boundary and is answered when that turn ends, with the
 * turn's stop reason. A prompt that arrives after `session/cancel` while the cancelled turn is still winding down
 * is a follow-up, not steering, so it is not lost in a turn that is ending.
 */
export class AcpSession {
  readonly id: string
  private readonly translator: UpdateTranslator
  private readonly unsubscribe: () => void
  private sending: Promise<void> = Promise.resolve()
  private pending: PendingPrompt[] = []
  private currentTurn = 0
  private lastEnd: TurnEnd | undefined
  /** How many times the client has cancelled. Compared, not reset, so overlapping prompts each see their own. */
  private cancels = 0
  private cancelPending = false
  /** Messages delivered before their prompt was registered: message id → turn. Cleared at each turn end. */
  private readonly delivered = new Map<string, number>()
  private closing: Promise<void> | undefined

  constructor(
    readonly agent: AcpAgent,
    private readonly client: AgentContext,
    private readonly options: AcpSessionOptions,
  ) {
    this.id = agent.session.id
    const tools = liveToolLookup(() => agent.toolList ?? [])
    this.translator = new UpdateTranslator(agent.cwd, tools)
    agent.permissionAsker = editorPermissionAsker(client, this.id, agent.cwd, options.log, tools)
    this.unsubscribe = agent.subscribe((event) => this.onLive(event))
  }

  /** Sends the stored history as updates, for `session/load`; resolves once all of them are written. */
  async replay(): Promise<void> {
    for (const event of this.agent.session.events) {
      for (const update of this.translator.replay(event)) this.send(update)
    }
    await this.sending
  }

  /** Tells the client which slash commands exist. */
  announceCommands(): Promise<void> {
    this.send({ sessionUpdate: 'available_commands_update', availableCommands: acpCommands(this.agent.cwd) })
    return this.sending
  }

  async prompt(prompt: readonly ContentBlock[]): Promise<PromptResponse> {
    if (this.closing) throw RequestError.sessionNotFound(this.id)
    const content = promptToInput(prompt, { images: this.options.images })
    const command = parseCommand(content, this.agent.cwd)
    let sent: string | undefined
    if (command) {
      const text = await runCommand(this.agent, command, (id) => (sent = id))
      this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } })
      await this.sending
      if (sent === undefined) return { stopReason: 'end_turn' }
    }
    const steering = !command && this.agent.busy && !this.cancelPending
    if (!this.agent.busy) this.cancelPending = false
    const cancelsAtStart = this.cancels
    const ended = new Promise<TurnEnd | undefined>((settle) => {
      // A command's prompt was queued by the command (`sent`); this request is answered when its turn ends.
      const messageId = sent ?? (steering ? this.agent.steer(content, ACP_SOURCE) : this.agent.followUp(content, ACP_SOURCE))
      // The agent may deliver the message before followUp returns; `delivered` remembers where it went.
      this.pending.push({ messageId, cancelsAtStart, settle, turn: this.delivered.get(messageId) })
    })
    const end = await ended
    await this.sending
    if (this.cancels !== cancelsAtStart) return { stopReason: 'cancelled' }
    if (!end) return { stopReason: 'end_turn' }
    if (end.reason === 'error') {
      throw new RequestError(-32603, end.error?.message ?? 'The turn failed; see the Rein log for the cause.', {
        code: end.error?.code ?? 'error',
      })
    }
    return { stopReason: stopReasonFor(end.reason) }
  }

  /** `session/cancel`: stops the running turn; every prompt waiting on it answers `cancelled`. */
  cancel(): void {
    if (!this.agent.busy && this.pending.length === 0) return
    this.cancels++
    this.cancelPending = true
    this.agent.cancel()
  }

  /** Sets the permission mode; the `current_mode_update` it causes is sent before this resolves. */
  async setMode(modeId: string): Promise<void> {
    if (!isPermissionMode(modeId)) {
      throw RequestError.invalidParams({ modeId }, `unknown mode "${modeId}"; use default, accept-edits, plan or bypass`)
    }
    this.agent.setPermissionMode(modeId)
    await this.sending
  }

  /** Cancels any running turn, answers waiting prompts, and closes the agent (which flushes its log). */
  close(reason: string): Promise<void> {
    this.closing ??= (async () => {
      if (this.agent.busy) this.cancel()
      try {
        await this.agent.close(reason)
      } finally {
        this.unsubscribe()
        this.agent.permissionAsker = undefined
        for (const p of this.pending.splice(0)) p.settle(this.lastEnd)
      }
    })()
    return this.closing
  }

  private onLive(live: LiveEvent): void {
    if (live.type === 'notice') {
      if (this.options.notices) this.send({ sessionUpdate: 'notice', severity: live.level, title: live.message })
      else this.options.log(`${live.level}: ${live.message}`)
      return
    }
    for (const update of this.translator.live(live)) this.send(update)
    for (const job of this.translator.takeDiffJobs()) this.sendDiffs(job)
    if (live.type === 'event') this.track(live.event)
    else if (live.type === 'idle') {
      this.cancelPending = false
      for (const p of this.pending.splice(0)) p.settle(this.lastEnd)
    }
  }

  /** Follows which turn each waiting prompt entered, and answers the prompts of a turn when it ends. */
  private track(event: SessionEvent): void {
    switch (event.type) {
      case 'turn/start':
        this.currentTurn = event.data.turn
        return
      case 'user/message':
      case 'steering/message':
        this.assignTurn(event.data.id)
        return
      case 'inbox/dequeued':
        // A prompt refused at the step boundary ends with the turn it was refused in.
        if (event.data.reason !== 'delivered') this.assignTurn(event.data.id)
        return
      case 'turn/end': {
        this.lastEnd = { reason: event.data.reason, error: event.data.error }
        const done = this.pending.filter((p) => p.turn === event.data.turn)
        this.pending = this.pending.filter((p) => p.turn !== event.data.turn)
        for (const p of done) p.settle(this.lastEnd)
        this.delivered.clear()
        return
      }
    }
  }

  private assignTurn(messageId: string): void {
    const prompt = this.pending.find((p) => p.messageId === messageId)
    if (prompt) prompt.turn ??= this.currentTurn
    else this.delivered.set(messageId, this.currentTurn)
  }

  /**
   * Sends what a step changed as diffs on its last tool call, read from the snapshot before the step and the
   * workspace now (the step has just ended). Files the result already shows as a diff (an edit) are not repeated;
   * when nothing is left, nothing is sent. Without a snapshot to read, the paths are listed as text. Queued like any
   * update, so later updates wait for it.
   */
  private sendDiffs(job: StepDiffJob): void {
    const shownAlready = new Set(job.resultContent.flatMap((c) => (c.type === 'diff' ? [c.path] : [])))
    const left = job.paths.filter((p) => !shownAlready.has(resolve(this.agent.cwd, p.path)))
    if (!left.length) return
    const files = job.before ? this.options.snapshotFiles?.(this.agent.cwd) : undefined
    const read: Promise<ToolCallContent[]> =
      files && job.before
        ? stepFiles(files, { before: job.before, paths: left, after: 'workspace' }, DIFF_FILES).then(
            (found) => stepDiffContent(found, left, this.agent.cwd),
            (error: unknown) => {
              this.options.log(`could not read the diffs of a step: ${String(error)}`)
              return [changesLine(left)]
            },
          )
        : Promise.resolve([changesLine(left)])
    this.sending = this.sending.then(async () => {
      const content = await read
      try {
        await this.client.notify('session/update', {
          sessionId: this.id,
          update: { sessionUpdate: 'tool_call_update', toolCallId: job.callId, content: [...job.resultContent, ...content] },
        })
      } catch (error) {
        this.options.log(`could not send a tool_call_update update: ${String(error)}`)
      }
    })
  }

  /** Queues one notification behind those already queued, so the client sees updates in the order they happened. */
  private send(update: SessionUpdate): void {
    this.sending = this.sending.then(async () => {
      try {
        await this.client.notify('session/update', { sessionId: this.id, update })
      } catch (error) {
        this.options.log(`could not send a ${update.sessionUpdate} update: ${String(error)}`)
      }
    })
  }
}
