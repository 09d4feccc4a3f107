import type { Block, LiveEvent, LogEvent } from './types.js'
import { sandboxMark } from '../../src/sandbox/result-mark.js'
import { counted } from '../../src/text/count.js'
import { ATTACHED_HEADING } from '../../src/frontend/typed-text.js'

/** What the transcript shows: one entry per message, tool call or notice, derived from the log and live deltas. */
export type Item =
  /** `turn` is the turn the message was logged in, when one was open: a prompt can be rewound to. */
  | { kind: 'user' | 'context' | 'steering'; key: string; seq: number; text: string; source: string; summary: boolean; images: number; turn?: number }
  | { kind: 'assistant'; key: string; seq: number; turn: number; step: number; text: string; reasoning: string; interrupted: boolean }
  | {
      kind: 'tool'
      key: string
      seq: number
      callId: string
      name: string
      input: string
      output?: string
      isError?: boolean
      /** The call was stopped by a cancel (the turn's), not failed by itself: shown as "cancelled". */
      cancelled?: boolean
      diff?: string
      progress: string
      /** From the tool's own display (sent by the server): the call's title and subject, the result's summary. */
      title?: string
      subject?: string
      command?: boolean
      summary?: string
      /** Present when the call ran inside the sandbox; `note` is what the sandbox stopped, when it stopped something. */
      sandbox?: { note?: string }
    }
  | { kind: 'notice'; key: string; seq?: number; level: 'info' | 'warning' | 'error'; text: string }
  /** What a step changed in the workspace (`checkpoint/changes`), shown after the step's tool cards. */
  | { kind: 'changes'; key: string; seq: number; turn: number; step: number; paths: { path: string; kind: string }[] }
  | { kind: 'streaming'; key: string; turn: number; step: number; text: string; reasoning: string; tools: string }

function textOf(content: unknown): { text: string; images: number } {
  const blocks = Array.isArray(content) ? (content as Block[]) : []
  return {
    text: blocks
      .filter((b): b is Extract<Block, { type: 'text' }> => b.type === 'text')
      .map((b) => (b.text.startsWith(ATTACHED_HEADING) ? attachedLine(b.text) : b.text))
      .join('\n'),
    images: blocks.filter((b) => b.type === 'image').length,
  }
}

/** What a tool's result says when a cancel stopped it (src/tools/bash.ts, src/agent/tool-runner.ts). */
const CANCELLED = /\[cancelled; the command and its children were killed\]|\(The user cancelled the turn while this ran\.\)/

function str(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

/**
 * Folds events (in seq order) and live deltas into transcript items. Tool calls and their results meet in one card;
 * the streaming entry of a step gives way to its `assistant/message` when that is committed.
 */
export class TranscriptModel {
  items: Item[] = []
  private tools = new Map<string, number>()
  private streaming: number | undefined
  /** Bumped on every change, so a component can tell the list changed. */
  version = 0
  /** A step's changes, logged before its last tool result, wait here for the step's end. */
  private waitingChanges: Extract<Item, { kind: 'changes' }> | undefined
  private lastEnded: { turn: number; step: number } | undefined
  private openTurn: number | undefined
  /** The model and effort of the latest `request/header`, to announce a change (the first header announces nothing). */
  private config: { model: string; effort: string } | undefined

  apply(event: LogEvent): void {
    const d = event.data
    const key = `e${event.seq}`
    if (this.waitingChanges && (event.type === 'step/end' || event.type === 'step/start' || event.type === 'turn/start' || event.type === 'turn/end')) {
      this.items.push(this.waitingChanges)
      this.waitingChanges = undefined
      this.version++
    }
    switch (event.type) {
      case 'checkpoint/changes': {
        const paths = Array.isArray(d.paths) ? (d.paths as { path?: unknown; kind?: unknown }[]).map((p) => ({ path: str(p.path), kind: str(p.kind) })) : []
        if (!paths.length) return
        const item: Extract<Item, { kind: 'changes' }> = { kind: 'changes', key, seq: event.seq, turn: Number(d.turn), step: Number(d.step), paths }
        // Listed after its step ended (the step's last call never ran): shown at once.
        const ended = this.lastEnded?.turn === item.turn && this.lastEnded.step === item.step
        if (ended) this.items.push(item)
        else this.waitingChanges = item
        break
      }
      case 'step/end':
        this.lastEnded = { turn: Number(d.turn), step: Number(d.step) }
        return
      case 'turn/start':
        this.openTurn = Number(d.turn)
        return
      case 'checkpoint/rewind': {
        const fork = d.fork as { id?: unknown } | undefined
        const changes = Array.isArray(d.changes) ? d.changes.length : 0
        const parts = [d.target ? `${counted(changes, 'file')} restored` : '', fork ? `conversation forked to ${str(fork.id).slice(0, 8)}` : '']
        this.items.push({ kind: 'notice', key, seq: event.seq, level: 'info', text: `Rewound to turn ${String(d.turn)}: ${parts.filter(Boolean).join('; ') || 'nothing to restore'}.` })
        break
      }
      case 'checkpoint/rewind-undone':
        this.items.push({ kind: 'notice', key, seq: event.seq, level: 'info', text: 'The rewind was undone; the files are back as they were before it.' })
        break
      case 'user/message':
      case 'context/message':
      case 'steering/message': {
        const kind = event.type === 'user/message' ? 'user' : event.type === 'context/message' ? 'context' : 'steering'
        const { text, images } = textOf(d.content)
        const source = str((d.source as { kind?: unknown } | undefined)?.kind)
        const summary = typeof event.surfaceOp === 'object' && event.surfaceOp !== null
        this.items.push({ kind, key, seq: event.seq, text, source, summary, images, ...(this.openTurn !== undefined ? { turn: this.openTurn } : {}) })
        break
      }
      case 'assistant/message': {
        this.dropStreaming()
        const content = ((d.message as { content?: unknown } | undefined)?.content ?? []) as Block[]
        const text = content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('')
        const reasoning = content.filter((b) => b.type === 'reasoning').map((b) => (b as { text: string }).text).join('')
        if (text || reasoning || d.interrupted) {
          this.items.push({ kind: 'assistant', key, seq: event.seq, turn: Number(d.turn), step: Number(d.step), text, reasoning, interrupted: d.interrupted === true })
        }
        break
      }
      case 'tool/call': {
        const callId = str(d.callId)
        const input = typeof d.rewritten === 'object' && d.rewritten ? str((d.rewritten as { arguments?: unknown }).arguments) : str(d.arguments)
        this.tools.set(callId, this.items.length)
        const shown = event.shown ?? {}
        this.items.push({ kind: 'tool', key, seq: event.seq, callId, name: str(d.name), input, progress: '', title: shown.title, subject: shown.subject, ...(shown.command ? { command: true } : {}) })
        break
      }
      case 'tool/result': {
        const callId = str(d.callId)
        let index = this.tools.get(callId)
        if (index === undefined) {
          index = this.items.length
          this.tools.set(callId, index)
          this.items.push({ kind: 'tool', key, seq: event.seq, callId, name: '(tool)', input: '', progress: '' })
        }
        const item = this.items[index]
        if (item.kind === 'tool') {
          const meta = d.meta as { diff?: unknown } | undefined
          const output = textOf(d.content).text
          const mark = sandboxMark(d.meta, output)
          const sandbox = mark ? { sandbox: mark.note ? { note: mark.note } : {} } : {}
          const cancelled = d.isError === true && CANCELLED.test(output)
          this.items[index] = { ...item, output, isError: d.isError === true, ...(cancelled ? { cancelled } : {}), diff: str(meta?.diff) || undefined, summary: event.shown?.summary, ...sandbox }
        }
        break
      }
      case 'turn/end': {
        const error = d.error as { message?: unknown } | undefined
        if (d.reason === 'error' || d.reason === 'blocked') {
          this.items.push({ kind: 'notice', key, seq: event.seq, level: 'error', text: str(error?.message) || `The turn ended: ${str(d.reason)}.` })
        } else if (d.reason === 'aborted' || d.reason === 'interrupted') {
          this.items.push({ kind: 'notice', key, seq: event.seq, level: 'info', text: d.reason === 'aborted' ? 'Cancelled.' : 'Interrupted.' })
        }
        this.dropStreaming()
        this.openTurn = undefined
        break
      }
      case 'compaction/end':
        this.items.push({ kind: 'notice', key, seq: event.seq, level: 'info', text: `Compaction ${str(d.outcome)}${d.message ? `: ${str(d.message)}` : ''}` })
        break
      case 'llm/retry': {
        const error = d.error as { message?: unknown } | undefined
        this.items.push({ kind: 'notice', key, seq: event.seq, level: 'warning', text: `Retrying (attempt ${String(d.attempt)}): ${str(error?.message)}` })
        break
      }
      case 'request/header': {
        const config = d.config as { model?: unknown; effort?: unknown } | undefined
        const next = { model: str(config?.model), effort: str(config?.effort) }
        if (!next.model) return
        const before = this.config
        this.config = next
        if (!before || (before.model === next.model && before.effort === next.effort)) return
        const parts = [before.model !== next.model ? `model ${before.model} → ${next.model}` : '', before.effort !== next.effort ? `effort ${before.effort} → ${next.effort}` : '']
        this.items.push({ kind: 'notice', key, seq: event.seq, level: 'info', text: `Switched ${parts.filter(Boolean).join(', ')}.` })
        break
      }
      case 'permission/mode':
        this.items.push({ kind: 'notice', key, seq: event.seq, level: 'info', text: `Permission mode: ${str(d.mode)}.` })
        break
      default:
        return
    }
    this.version++
  }

  live(event: LiveEvent): void {
    switch (event.type) {
      case 'event':
        this.apply(event.event)
        return
      case 'text-delta':
      case 'reasoning-delta':
      case 'tool-call-delta': {
        const item = this.streamingItem(event.turn, event.step)
        if (event.type === 'text-delta') item.text += event.text
        else if (event.type === 'reasoning-delta') item.reasoning += event.text
        else item.tools += event.name ? `${event.name} ${event.argumentsDelta}` : event.argumentsDelta
        break
      }
      case 'tool-progress': {
        const index = this.tools.get(event.callId)
        const item = index === undefined ? undefined : this.items[index]
        if (item?.kind !== 'tool') return
        this.items[index as number] = { ...item, progress: (item.progress + event.text).slice(-4000) }
        break
      }
      case 'notice':
        this.items.push({ kind: 'notice', key: `n${this.version}`, level: event.level, text: event.message })
        break
      case 'idle':
        return
    }
    this.version++
  }

  private streamingItem(turn: number, step: number): Extract<Item, { kind: 'streaming' }> {
    const current = this.streaming === undefined ? undefined : this.items[this.streaming]
    if (current?.kind === 'streaming' && current.turn === turn && current.step === step) {
      const copy = { ...current }
      this.items[this.streaming as number] = copy
      return copy
    }
    this.dropStreaming()
    const item: Extract<Item, { kind: 'streaming' }> = { kind: 'streaming', key: `s${turn}.${step}`, turn, step, text: '', reasoning: '', tools: '' }
    this.streaming = this.items.length
    this.items.push(item)
    return item
  }

  private dropStreaming(): void {
    if (this.streaming === undefined) return
    const index = this.streaming
    this.streaming = undefined
    if (this.items[index]?.kind !== 'streaming') return
    this.items.splice(index, 1)
    for (const [id, i] of this.tools) if (i > index) this.tools.set(id, i - 1)
  }
}

/** An attached file's block as the terminal shows it: one line naming the file, not its content (a paragraph of its own in Markdown). */
function attachedLine(text: string): string {
  return `\n⎘ attached @${text.slice(ATTACHED_HEADING.length).split('\n')[0].replace(/:$/, '')}`
}
