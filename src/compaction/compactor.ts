import { randomUUID } from 'node:crypto'
import { ResponseAssembler } from '../llm/assemble.js'
import type { ModelAdapter } from '../llm/adapter.js'
import { textOf, type Usage } from '../llm/messages.js'
import type { SessionEvent, SurfaceEvent } from '../session/events.js'
import type { BeforeRequestInfo, CommandInput, Extension, ExtensionCommand, ExtensionContext, RequestFailedInfo } from '../agent/extensions.js'
import { encodeRequest, summaryMessages } from '../session/request.js'
import type { Session } from '../session/session.js'
import { chooseShadow, chooseShadowKeepingUnits, estimateTokens, units, type Shadow } from './units.js'
import { framedSummary, nothingToCompact, summaryInstruction, trimmedOutput } from './summary-text.js'
import { counted, grouped } from '../text/count.js'

export interface CompactionSettings {
  /** Compact when the next prompt would exceed this share of the context window. */
  ratio: number
  /** Keep at least this share of the window of the most recent surface verbatim. */
  keepRatio: number
  /** Tool results above this many tokens may be trimmed to head and tail. */
  trimAboveTokens: number
  /** Characters kept at each end of a trimmed result. */
  trimKeepChars: number
}

export const DEFAULT_COMPACTION: CompactionSettings = { ratio: 0.8, keepRatio: 0.15, trimAboveTokens: 2_000, trimKeepChars: 1_500 }

export type CompactionTrigger = 'auto' | 'overflow' | 'manual'

export interface CompactionOutcome {
  outcome: 'replaced' | 'trimmed' | 'failed' | 'no-gain' | 'blocked' | 'nothing'
  /** One sentence for the user. */
  message: string
}

export interface CompactorOptions {
  session: Session
  adapter: ModelAdapter
  contextWindow: () => number
  settings?: Partial<CompactionSettings>
  /** PreCompact hooks, given the trigger and a manual compaction's focus: a `blocked` reason stops the compaction. */
  preCompact?: (trigger: CompactionTrigger, focus?: string) => Promise<{ blocked?: string }>
}

/**
 * Cache-aware compaction (docs/compaction.md), as an extension of the loop. One transaction bracketed by
 * `compaction/start` and `compaction/end`: either old tool results are trimmed in place (each a replace of exactly
 * that result), or the oldest whole units are summarized by a request that reuses the session's cached prefix, and
 * the summary replaces them on the surface. A failure or a summary that does not shrink anything leaves the surface
 * as it was.
 *
 * When: before a request whose prompt passes the threshold (`beforeRequest`; after a failure not again in the same
 * turn, so an outage costs one summary request per turn, not one per step); once per step when the model answers
 * that the context is too long (`requestFailed`, then the request is retried); and on the `compact` command.
 */
export class Compactor implements Extension {
  readonly name = 'compaction'
  readonly settings: CompactionSettings
  readonly commands: Record<string, ExtensionCommand> = {
    compact: (input: CommandInput, signal: AbortSignal) => this.compact('manual', { turn: this.lastTurn(), step: 0, signal, focus: input.text, keep: input.keep }),
  }
  /** The turn in which automatic compaction last failed; it is not tried again in that turn. */
  private autoFailedIn = 0
  /** The step (`turn/step`) whose context-too-long error was already answered by compacting. */
  private overflowAnsweredIn = ''

  /** Throws one sentence naming the setting when a configured value is out of range (settings are user-written). */
  constructor(private readonly options: CompactorOptions) {
    this.settings = checkedSettings({ ...DEFAULT_COMPACTION, ...options.settings })
  }

  /** The prompt size, in estimated tokens, above which the next request compacts first. */
  threshold(): number {
    return Math.floor(this.options.contextWindow() * this.settings.ratio)
  }

  async beforeRequest(info: BeforeRequestInfo, context: ExtensionContext): Promise<void> {
    if (info.promptTokens <= this.threshold() || this.autoFailedIn === info.turn) return
    const outcome = await this.compact('auto', info)
    report(context, outcome)
    // A context-too-long error still compacts at once, whatever happened here.
    this.autoFailedIn = changed(outcome) ? 0 : info.turn
  }

  async requestFailed(info: RequestFailedInfo, context: ExtensionContext): Promise<'retry' | void> {
    const step = `${info.turn}/${info.step}`
    if (info.error.code !== 'context-too-long' || this.overflowAnsweredIn === step) return
    this.overflowAnsweredIn = step
    const outcome = await this.compact('overflow', info)
    report(context, outcome)
    if (changed(outcome)) return 'retry'
  }

  /**
   * Compacts now. A manual compaction shadows everything but the newest `keep` units (default 1, the newest
   * exchange); an automatic one keeps `keepRatio` of the window verbatim. `nothing` says why in numbers.
   */
  async compact(
    trigger: CompactionTrigger,
    at: { turn: number; step: number; signal: AbortSignal; focus?: string; keep?: number; promptTokens?: number },
  ): Promise<CompactionOutcome> {
    const session = this.options.session
    const id = randomUUID()
    const surface = session.surface()
    const window = this.options.contextWindow()
    const keepTokens = Math.floor(window * this.settings.keepRatio)
    const shadow = trigger === 'manual' ? chooseShadowKeepingUnits(surface, at.keep ?? 1) : chooseShadow(surface, keepTokens)
    const all = units(surface)
    const conversation = { units: all.length, tokens: all.reduce((n, u) => n + u.tokens, 0) }
    if (!shadow) {
      const kept = trigger === 'manual' ? { units: at.keep ?? 1 } : { tokens: keepTokens, ratio: this.settings.keepRatio, window }
      return { outcome: 'nothing', message: nothingToCompact(conversation, kept) }
    }
    if (isOnlySummary(surface, shadow)) {
      return {
        outcome: 'nothing',
        message: `Nothing to compact: everything before ${keptWords(all.length - shadow.units)} is already one summary (${counted(shadow.tokens, 'token')}).`,
      }
    }
    const start = surface[0].seq
    const end = surface[shadow.end].seq

    const blocked = (await this.options.preCompact?.(trigger, at.focus))?.blocked
    if (blocked) {
      session.append('compaction/start', { id, trigger, start, end })
      session.append('compaction/end', { id, outcome: 'blocked', message: blocked })
      return { outcome: 'blocked', message: `A PreCompact hook blocked compaction: ${blocked}` }
    }

    if (trigger !== 'manual' && at.promptTokens !== undefined) {
      const trimmed = this.tryTrim(id, trigger, surface.slice(0, shadow.end + 1), at.promptTokens)
      if (trimmed) return trimmed
    }
    return this.summarize(id, trigger, surface, shadow, at)
  }

  /** The number of the latest turn: a manual compaction's summary request is logged against it. */
  private lastTurn(): number {
    return this.options.session.last('turn/start')?.data.turn ?? 0
  }

  /** Trims old long tool results when that alone brings the prompt under the threshold. */
  private tryTrim(
    id: string,
    trigger: CompactionTrigger,
    old: readonly SurfaceEvent[],
    promptTokens: number,
  ): CompactionOutcome | null {
    const candidates: { event: SessionEvent<'tool/result'>; text: string; saved: number }[] = []
    for (const entry of old) {
      if (entry.type !== 'tool/result') continue
      const text = textOf(entry.data.content)
      if (estimateTokens(text) <= this.settings.trimAboveTokens || entry.data.content.some((b) => b.type !== 'text')) continue
      const shorter = trimmedOutput(text, this.settings.trimKeepChars)
      candidates.push({ event: entry, text: shorter, saved: estimateTokens(text) - estimateTokens(shorter) })
    }
    const saved = candidates.reduce((n, c) => n + c.saved, 0)
    if (!candidates.length || promptTokens - saved > this.threshold()) return null
    const session = this.options.session
    session.append('compaction/start', {
      id,
      trigger,
      start: candidates[0].event.seq,
      end: candidates[candidates.length - 1].event.seq,
      mode: 'trim',
    })
    for (const { event, text } of candidates) {
      const { content: _old, ...rest } = event.data
      session.append('tool/result', { ...rest, content: [{ type: 'text', text }] }, {
        surfaceOp: { op: 'replace', start: event.seq, end: event.seq },
      })
    }
    const message = `Trimmed ${counted(candidates.length, 'old tool output')}, saving about ${counted(saved, 'token')}.`
    session.append('compaction/end', { id, outcome: 'replaced', message })
    return { outcome: 'trimmed', message }
  }

  private async summarize(
    id: string,
    trigger: CompactionTrigger,
    surface: readonly SurfaceEvent[],
    shadow: Shadow,
    at: { turn: number; step: number; signal: AbortSignal; focus?: string },
  ): Promise<CompactionOutcome> {
    const session = this.options.session
    const header = session.last('request/header')?.data
    if (!header) return { outcome: 'nothing', message: 'Nothing has been sent to the model yet, so there is nothing to compact.' }
    const start = surface[0].seq
    const end = surface[shadow.end].seq
    const instruction = summaryInstruction(at.focus)
    session.append('compaction/start', { id, trigger, start, end, mode: 'summary', instruction })

    const request = { config: header.config, system: header.system, tools: header.tools, messages: summaryMessages(surface, shadow.end, instruction) }
    const { body, sha256, bytes } = encodeRequest(this.options.adapter, request)
    await session.flush()
    session.append('request/sent', { turn: at.turn, step: at.step, sha256, bytes, purpose: 'compaction' })

    const assembler = new ResponseAssembler()
    for await (const chunk of this.options.adapter.stream(body, { signal: at.signal })) assembler.push(chunk)
    const result = assembler.result()
    const usage: Usage | undefined = result.usage
    // What the summary cost, logged on every end that follows it so each cost figure counts it (sideRequestUsage).
    const spent = usage ? { usage, model: header.config.model } : {}
    const failEnd = (message: string): CompactionOutcome => {
      session.append('compaction/end', { id, outcome: 'failed', message, ...spent })
      return { outcome: 'failed', message }
    }
    if (result.finish === 'aborted') return failEnd('Compaction was cancelled; the session is unchanged.')
    if (result.finish === 'error') return failEnd(`Compaction failed and the session is unchanged: ${result.error?.message ?? 'the model gave no summary.'}`)
    const summary = textOf(result.message.content)
    if (!summary.trim()) return failEnd('Compaction failed and the session is unchanged: the model returned no summary text.')

    const text = framedSummary(summary, session.last('todo/write')?.data.todos ?? [])
    const after = estimateTokens(text)
    if (after >= shadow.tokens) {
      const message = `The summary (about ${counted(after, 'token')}) would not be smaller than what it replaces (about ${grouped(shadow.tokens)}); the session is unchanged.`
      session.append('compaction/end', { id, outcome: 'no-gain', message, ...spent })
      return { outcome: 'no-gain', message }
    }
    session.append(
      'context/message',
      { id: randomUUID(), content: [{ type: 'text', text }], source: { kind: 'compaction', compaction: id } },
      { surfaceOp: { op: 'replace', start, end } },
    )
    const message = `Compacted ${counted(shadow.end + 1, 'message')} (about ${counted(shadow.tokens, 'token')}) into a summary of about ${counted(after, 'token')}.`
    session.append('compaction/end', { id, outcome: 'replaced', message, ...spent })
    await session.flush()
    return { outcome: 'replaced', message }
  }
}

/** True when the surface changed: the summary or the trimmed results are in place. */
export const changed = (outcome: CompactionOutcome): boolean => outcome.outcome === 'replaced' || outcome.outcome === 'trimmed'

function report(context: ExtensionContext, outcome: CompactionOutcome): void {
  context.notify(changed(outcome) ? 'info' : 'warning', outcome.message)
}

function keptWords(units: number): string {
  return units === 1 ? 'the newest exchange' : `the newest ${grouped(units)} exchanges`
}

/** True when the shadow would be one earlier summary alone: summarizing a summary gains nothing. */
function isOnlySummary(surface: readonly SurfaceEvent[], shadow: Shadow): boolean {
  const first = surface[0]
  return shadow.end === 0 && first.type === 'context/message' && first.data.source.kind === 'compaction'
}

/** The range each setting must lie in: a bad value would otherwise silently disable or break compaction. */
const RANGES: Record<keyof CompactionSettings, { min: number; max: number; name: string }> = {
  ratio: { min: 0.05, max: 1, name: 'compaction.ratio (or models.<id>.compactAt)' },
  keepRatio: { min: 0, max: 0.9, name: 'compaction.keepRatio' },
  trimAboveTokens: { min: 1, max: Number.MAX_SAFE_INTEGER, name: 'compaction.trimAboveTokens' },
  trimKeepChars: { min: 1, max: Number.MAX_SAFE_INTEGER, name: 'compaction.trimKeepChars' },
}

function checkedSettings(settings: CompactionSettings): CompactionSettings {
  for (const key of Object.keys(RANGES) as (keyof CompactionSettings)[]) {
    const value: unknown = settings[key]
    const { min, max, name } = RANGES[key]
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `a number of at least ${min}` : `a number from ${min} to ${max}`
      throw new Error(`The setting ${name} is ${JSON.stringify(value)}; set it to ${range} in settings.json.`)
    }
  }
  return settings
}
