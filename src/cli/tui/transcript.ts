import type { LiveEvent } from '../../agent/types.js'
import type { InputBlock } from '../../llm/messages.js'
import type { SessionEvent, TurnEndReason } from '../../session/events.js'
import { appendTail, describeCall, describeResult, plainLine, toolLookup, type ToolLookup } from '../../frontend/render/index.js'
import { counted } from '../../text/count.js'
import type { Change } from '../../checkpoints/engine.js'
import { describeRewind, describeRewindUndone } from '../../checkpoints/describe-changes.js'
import { printable, printableDeep, printableLine } from './printable.js'
import { ATTACHED_HEADING } from './attachments.js'
import { isShellOutput, shellCardOf } from './shell-mode.js'
export { typedText } from '../../frontend/typed-text.js'

/** A tool call as the conversation shows it: one compact card. */
export interface ToolCard {
  callId: string
  name: string
  /** What the call acts on (a path, a command, a pattern), already shortened for one line. */
  target: string
  status: 'running' | 'ok' | 'error'
  /** Time of the `tool/call` event, ms since the epoch. */
  startedAt: number
  /** From `tool/call` to `tool/result`, in ms; absent while running. */
  durationMs?: number
  /** One line about the result from the tool's display (`exit code 0`, `42 lines`); absent while running. */
  summary?: string
  /** A unified diff from the result's `meta` (edit, write). */
  diff?: string
  /** The last lines of output: live progress while running, the result's text when done. */
  tail: string[]
  /** The first line of an error result. */
  error?: string
  /** Output lines before the tail that the card leaves out (the expand key prints them). */
  hiddenLines?: number
  /** Present when the call ran inside the sandbox (docs/sandbox.md), with the sandbox's note when it stopped something. */
  sandbox?: { note?: string }
}

/**
 * One finished piece of the conversation. Finished items never change once made: they are printed once to the
 * terminal's scrollback (ink's `<Static>`), so the cost of a redraw does not grow with the session.
 */
export type Item =
  | { kind: 'user'; key: string; text: string; via: 'prompt' | 'steering' }
  /** Injected context or a hook message: shown as one line, expandable on request. */
  | { kind: 'context'; key: string; label: string; text: string }
  | { kind: 'reasoning'; key: string; text: string }
  | { kind: 'assistant'; key: string; text: string; interrupted: boolean }
  | { kind: 'tool'; key: string; card: ToolCard }
  | { kind: 'notice'; key: string; level: 'info' | 'warning' | 'error'; text: string }
  | { kind: 'turn-end'; key: string; reason: TurnEndReason; message?: string }
  /** What a step changed in the workspace (`checkpoint/changes`), after the step's tool cards. */
  | { kind: 'changes'; key: string; paths: Change[] }
  /** The full text of a collapsed item, printed when the user asks to expand it. */
  | { kind: 'expanded'; key: string; title: string; text: string; markdown?: boolean }

/** The part of the conversation that still changes: the streaming step and the running tools. */
export interface LiveState {
  reasoning: string
  text: string
  /** Tool calls the model is still writing, by index: name and how many argument characters so far. */
  writing: { name: string; chars: number }[]
  running: ToolCard[]
  /** When the step now waiting on the model started (ms since the epoch); absent once its answer is complete. */
  requestSince?: number
  /** Characters streamed so far in that step (text, reasoning, tool arguments): the spinner's token estimate. */
  streamedChars: number
}

/** A prompt waiting in the agent's inbox, from `inbox/queued` until its `inbox/dequeued`. */
export interface QueuedItem {
  id: string
  verb: 'followUp' | 'steer'
  text: string
}

/** One item of the model's task list (`todo_write`). */
export interface Todo {
  content: string
  status: 'pending' | 'in_progress' | 'completed'
}

export interface TranscriptSnapshot {
  finished: readonly Item[]
  live: LiveState
  /** The task list of the latest `todo/write`; absent before the model wrote one. */
  todos?: readonly Todo[]
  /** Steering and follow-ups not yet delivered, oldest first. Rebuilt from the log, so it survives a restart. */
  queued: readonly QueuedItem[]
  title?: string
}

/** The longest subject a tool card shows on its one line. */
const CARD_TITLE_MAX = 80

/** How many finished items a resumed session prints. */
export const HISTORY_ITEMS = 200

const emptyLive = (): LiveState => ({ reasoning: '', text: '', writing: [], running: [], streamedChars: 0 })

/**
 * The plain text of input blocks; each image shows as `[image <mime type>]`. A file a prompt attached (attachments.ts)
 * shows as one line naming it, not as its content, and an image it attached is named by that line alone.
 */
export function blocksText(blocks: readonly InputBlock[]): string {
  let out = ''
  let named = false
  for (const b of blocks) {
    if (b.type === 'text' && b.text.startsWith(ATTACHED_HEADING)) {
      out += `\n⎘ attached @${b.text.slice(ATTACHED_HEADING.length).split('\n')[0].replace(/:$/, '')}`
      named = true
    } else if (b.type === 'text') out += b.text
    else if (!named) out += `[image ${b.mimeType}]`
    else named = false
  }
  return out
}


/**
 * Folds the agent's live events into conversation items. Mutable and incremental: each event costs O(1) apart from
 * the snapshot copy of the finished list, which happens at most once per change notification.
 */
export class Transcript {
  private finished: Item[] = []
  private live: LiveState = emptyLive()
  private title?: string
  private queued: QueuedItem[] = []
  private todos?: readonly Todo[]
  private snap: TranscriptSnapshot | null = null
  private listeners = new Set<() => void>()
  private counter = 0
  /**
   * Injected context that entered together (a session start brings workspace instructions, runtime context, the
   * skills listing in a row) is held and printed as one line once anything else happens.
   */
  private heldContext: Extract<Item, { kind: 'context' }> | undefined
  /**
   * A step's `checkpoint/changes` waits here for the step's end: it is logged just before the step's last tool
   * result, and finished items cannot move once printed.
   */
  private waitingChanges: { turn: number; step: number; paths: Change[] } | undefined
  private lastEndedStep: { turn: number; step: number } | undefined

  /** `tools` finds each call's tool for its display (`agentToolLookup(agent)`); `cwd` shortens the paths in titles. */
  constructor(
    private readonly tools: ToolLookup = toolLookup(),
    private readonly cwd: string = process.cwd(),
  ) {}

  /**
   * Replays committed history (a resumed session) without notifying per event. Only the last `keep` items are
   * printed: printing thousands into the scrollback costs seconds and nobody scrolls that far; `/export` has all.
   */
  load(events: Iterable<SessionEvent>, keep = HISTORY_ITEMS): void {
    for (const event of events) this.applyEvent(event)
    this.releaseContext()
    if (this.finished.length > keep) {
      const dropped = this.finished.length - keep
      this.finished = [
        { kind: 'notice', key: this.key(), level: 'info', text: `${counted(dropped, 'earlier item')} ${dropped === 1 ? 'is' : 'are'} not shown; /export writes the whole conversation.` },
        ...this.finished.slice(dropped),
      ]
    }
    this.changed()
  }

  apply(live: LiveEvent): void {
    switch (live.type) {
      case 'event':
        this.applyEvent(live.event)
        break
      case 'text-delta':
        this.live = { ...this.live, text: this.live.text + printable(live.text), streamedChars: this.live.streamedChars + live.text.length }
        break
      case 'reasoning-delta':
        this.live = { ...this.live, reasoning: this.live.reasoning + printable(live.text), streamedChars: this.live.streamedChars + live.text.length }
        break
      case 'tool-call-delta': {
        const writing = this.live.writing.slice()
        const prev = writing[live.index] ?? { name: '', chars: 0 }
        writing[live.index] = { name: live.name ?? prev.name, chars: prev.chars + live.argumentsDelta.length }
        this.live = { ...this.live, writing, streamedChars: this.live.streamedChars + live.argumentsDelta.length }
        break
      }
      case 'tool-progress':
        this.live = {
          ...this.live,
          running: this.live.running.map((c) =>
            c.callId === live.callId ? { ...c, tail: appendTail(c.tail, printable(live.text)).map(printableLine) } : c,
          ),
        }
        break
      case 'notice':
        this.push({ kind: 'notice', key: this.key(), level: live.level, text: live.message })
        break
      case 'idle':
        // Nothing to fold, but the screen's busy state (read from the agent) must be redrawn.
        break
    }
    this.changed()
  }

  /** Adds an item that did not come from the agent (slash command output, expansions). */
  note(item: Omit<Extract<Item, { kind: 'notice' }>, 'key'> | Omit<Extract<Item, { kind: 'expanded' }>, 'key'>): void {
    this.push({ ...item, key: this.key() } as Item)
    this.changed()
  }

  /** The most recent collapsed item (reasoning, injected context, a tool card with output left out), for the expand key. */
  lastCollapsed(): Extract<Item, { kind: 'reasoning' | 'context' | 'tool' }> | undefined {
    for (let i = this.finished.length - 1; i >= 0; i--) {
      const item = this.finished[i]
      if (item.kind === 'reasoning' || item.kind === 'context') return item
      if (item.kind === 'tool' && item.card.hiddenLines) return item
    }
    return undefined
  }

  snapshot(): TranscriptSnapshot {
    if (!this.snap) this.snap = { finished: this.finished.slice(), live: this.live, queued: this.queued, title: this.title, todos: this.todos }
    return this.snap
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Holds an injected context item, joining it to the one held: one line for context that entered together. */
  private holdContext(label: string, text: string): void {
    const held = this.heldContext
    if (label === 'hook' || held?.label === 'hook') this.releaseContext()
    if (!this.heldContext) this.heldContext = { kind: 'context', key: this.key(), label, text }
    else this.heldContext = { ...this.heldContext, label: `${this.heldContext.label}, ${label}`, text: `${this.heldContext.text}\n\n${text}` }
  }

  private releaseContext(): void {
    const held = this.heldContext
    this.heldContext = undefined
    if (held) this.finished.push(printableDeep(held))
  }

  private applyEvent(event: SessionEvent): void {
    const injected = event.type === 'context/message' || (event.type === 'steering/message' && event.data.source.kind !== 'user')
    if (!injected) this.releaseContext()
    this.placeChanges(event)
    switch (event.type) {
      case 'user/message':
        this.push({ kind: 'user', key: this.key(), text: blocksText(event.data.content), via: 'prompt' })
        break
      case 'steering/message':
        if (event.data.source.kind === 'user') {
          this.push({ kind: 'user', key: this.key(), text: blocksText(event.data.content), via: 'steering' })
        } else {
          this.holdContext(event.data.source.kind, blocksText(event.data.content))
        }
        break
      case 'context/message':
        if (isShellOutput(event)) break
        this.holdContext(event.data.source.kind, blocksText(event.data.content))
        break
      case 'assistant/message': {
        let reasoning = ''
        let text = ''
        for (const block of event.data.message.content) {
          if (block.type === 'reasoning') reasoning += block.text
          else if (block.type === 'text') text += block.text
        }
        if (reasoning.trim()) this.push({ kind: 'reasoning', key: this.key(), text: reasoning })
        if (text.trim() || event.data.interrupted) {
          this.push({ kind: 'assistant', key: this.key(), text, interrupted: event.data.interrupted === true })
        }
        this.live = { ...this.live, reasoning: '', text: '', writing: [], requestSince: undefined }
        break
      }
      case 'todo/write':
        this.todos = printableDeep(event.data.todos)
        break
      case 'step/start':
        this.live = { ...this.live, requestSince: event.time, streamedChars: 0 }
        break
      case 'tool/call': {
        const card: ToolCard = {
          callId: event.data.callId,
          name: event.data.name,
          target: plainLine(describeCall(this.tools(event.data.name), event.data.name, event.data.arguments, this.cwd).subject, CARD_TITLE_MAX),
          status: 'running',
          startedAt: event.time,
          tail: [],
        }
        this.live = { ...this.live, running: [...this.live.running, card] }
        break
      }
      case 'tool/result': {
        const index = this.live.running.findIndex((c) => c.callId === event.data.callId)
        const started = index >= 0 ? this.live.running[index] : undefined
        const details = describeResult(started ? this.tools(started.name) : undefined, event.data)
        const card: ToolCard = {
          callId: event.data.callId,
          name: started?.name ?? 'tool',
          target: started?.target ?? '',
          status: event.data.isError ? 'error' : 'ok',
          startedAt: started?.startedAt ?? event.time,
          durationMs: started ? Math.max(0, event.time - started.startedAt) : undefined,
          ...details,
        }
        if (index >= 0) {
          const running = this.live.running.slice()
          running.splice(index, 1)
          this.live = { ...this.live, running }
        }
        this.push({ kind: 'tool', key: this.key(), card })
        break
      }
      case 'turn/end':
        this.live = { ...this.live, requestSince: undefined }
        if (this.live.text || this.live.reasoning) this.live = { ...this.live, text: '', reasoning: '' }
        if (this.live.running.length) this.live = { ...this.live, running: [] }
        if (event.data.reason !== 'completed') {
          this.push({ kind: 'turn-end', key: this.key(), reason: event.data.reason, message: event.data.error?.message })
        }
        break
      case 'llm/retry':
        this.push({
          kind: 'notice',
          key: this.key(),
          level: 'warning',
          text: `${event.data.error.message} Retry ${event.data.attempt} in ${Math.ceil(event.data.delayMs / 1000)} s.`,
        })
        break
      case 'compaction/end':
        this.push({
          kind: 'notice',
          key: this.key(),
          level: event.data.outcome === 'failed' ? 'warning' : 'info',
          text: event.data.message ?? `Compaction ${event.data.outcome}.`,
        })
        break
      case 'permission/mode':
        this.push({ kind: 'notice', key: this.key(), level: 'info', text: `Permission mode is now ${event.data.mode}.` })
        break
      case 'plan/reviewed':
        this.push({ kind: 'expanded', key: this.key(), title: planTitle(event.data), text: event.data.plan, markdown: true })
        break
      case 'inbox/queued': {
        const shell = shellCardOf(event)
        if (shell) this.push({ kind: 'tool', key: this.key(), card: shell })
        if (event.data.verb !== 'inject') {
          this.queued = [...this.queued, { id: event.data.id, verb: event.data.verb, text: printable(blocksText(event.data.content)) }]
        }
        break
      }
      case 'inbox/dequeued':
        if (this.queued.some((q) => q.id === event.data.id)) this.queued = this.queued.filter((q) => q.id !== event.data.id)
        break
      case 'session/title':
        this.title = event.data.title
        break
      case 'checkpoint/rewind':
        this.push({ kind: 'notice', key: this.key(), level: 'info', text: `↺ ${describeRewind(event.data)}` })
        break
      case 'checkpoint/rewind-undone':
        this.push({ kind: 'notice', key: this.key(), level: 'info', text: `↻ ${describeRewindUndone(event.data)}` })
        break
      case 'checkpoint/changes': {
        const { turn, step } = event.data
        if (!event.data.paths.length) break
        const paths = event.data.paths.map((p) => ({ path: p.path, kind: p.kind }))
        // Listed after the step ended (its last call never ran): nothing of the step is still to come.
        if (this.lastEndedStep?.turn === turn && this.lastEndedStep.step === step) this.push({ kind: 'changes', key: this.key(), paths })
        else this.waitingChanges = { turn, step, paths }
        break
      }
      default:
        break
    }
  }

  /** Prints a waiting step's changes once its step has ended (or anything after it begins). */
  private placeChanges(event: SessionEvent): void {
    if (event.type === 'step/end') this.lastEndedStep = { turn: event.data.turn, step: event.data.step }
    if (!this.waitingChanges) return
    if (event.type !== 'step/end' && event.type !== 'step/start' && event.type !== 'turn/start' && event.type !== 'turn/end') return
    this.push({ kind: 'changes', key: this.key(), paths: this.waitingChanges.paths })
    this.waitingChanges = undefined
  }

  private push(item: Item): void {
    this.releaseContext()
    if (item.kind === 'tool') item = { ...item, card: { ...item.card, tail: item.card.tail.map(printableLine) } }
    this.finished.push(printableDeep(item))
  }

  private key(): string {
    return `i${this.counter++}`
  }

  private changed(): void {
    this.snap = null
    for (const listener of this.listeners) listener()
  }
}

/** The heading of a reviewed plan in the transcript (src/plan). */
function planTitle(review: { outcome: string; mode?: string }): string {
  if (review.outcome === 'approved') return `plan · approved, continuing in ${review.mode}`
  return review.outcome === 'kept-planning' ? 'plan · not approved, planning continues' : 'plan · presented (nothing could approve it)'
}
