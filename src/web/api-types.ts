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
}
