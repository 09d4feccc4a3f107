// The shapes the web API sends, shared by the server (src/web) and the page (web/src, type imports only): one
// definition, so the two cannot drift. No runtime imports here: the page's build type-checks this file.

/** One model response's figures. `cacheHitShare` is cache-read tokens over prompt tokens, 0..1. */
export interface StepFigures {
  turn: number
  step: number
  /** The seq of the `assistant/message` (or `compaction/end`) that reported the usage. */
  seq: number
  purpose: 'step' | 'compaction'
  model: string
  promptTokens: number
  cachedTokens: number
  outputTokens: number
  reasoningTokens: number
  cost: number
  cacheHitShare: number
}

/** One request of the session as the inspector lists it: where it is in the log, its digest check and its figures. */
export interface InspectedStep {
  /** The seq of its `request/sent`. */
  seq: number
  turn: number
  step: number
  purpose: 'step' | 'compaction'
  bytes: number
  sha256: string
  loggedSha256: string
  matches: boolean
  messages: number
  figures?: StepFigures
}

/** A session's state as the listing shows it. */
export type ShownState = 'running' | 'idle' | 'interrupted'

export interface SessionRow {
  id: string
  cwd: string
  title: string
  createdAt: number
  updatedAt: number
  turns: number
  bytes: number
  parent?: { id: string; seq: number }
  model: string
  state: ShownState
  /** True when this server holds the session open for writing. */
  hosted: boolean
  cost: number
  cacheHitShare?: number
  /** Model, cost, cache-hit share and a logged state are not computed yet (a cold listing of many sessions). */
  pending?: true
  /** Hidden from the page's default list (`POST /api/sessions/:id/archive`). */
  archived?: true
}

/**
 * What the server adds to a `tool/call` or `tool/result` event it sends the page, as `shown`: the call's tool's own
 * display (docs/tool-display.md), so the page needs no table of tools. Plain text, no control characters.
 */
export interface ShownToolEvent {
  /** On a call: one line naming it (`Read src/a.ts`, the command for bash). */
  title?: string
  /** On a call: what it acts on, shown after the tool's name. */
  subject?: string
  /** On a call: true when the title is a command, set as code. */
  command?: boolean
  /** On a result: one line about it (`exit code 0`, `42 lines`). */
  summary?: string
}

/** A permission question as the page asks it (`question` beside the request): the same text and diff as every surface. */
export interface ShownQuestion {
  title: string
  reason: string
  /** The rule "allow always" would save. */
  rule?: string
  /** The whole command, every line kept. */
  command?: string
  /** The change the call would make, read before approval: the file as shown and the unified diff. */
  change?: { shown: string; diff?: string }
  asker?: string
}
