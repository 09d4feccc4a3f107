import type { AssistantMessage, InputBlock, ToolSchema, Usage } from '../llm/messages.js'
import type { ModelConfig, Wire } from '../llm/adapter.js'

/** Plain JSON: what the log can hold. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

/** Who produced an input event. `kind` is `user` for a person; producers name themselves (`workspace-context`, `hook`…). */
export interface Source {
  kind: string
  [key: string]: JsonValue
}

/** `max-steps` is Rein's addition: the turn reached the step limit a caller set (`--max-turns`). */
export type TurnEndReason = 'completed' | 'aborted' | 'blocked' | 'error' | 'max-tokens' | 'max-steps' | 'interrupted'

/** A failure recorded in the log: a code and the one sentence a person reads. */
export interface LoggedError {
  code: string
  message: string
  [key: string]: JsonValue
}

/** `append` adds one surface entry; `replace` shadows surface entries `start..end` (inclusive seqs) with this event. */
export type SurfaceOp = 'append' | { op: 'replace'; start: number; end: number }

/** The first line of every session file. */
export interface SessionHeader {
  type: 'session'
  version: 1
  id: string
  createdAt: number
  cwd: string
  parent?: { id: string; seq: number }
  /** Set on a subagent's session: the parent session, the `task` call that started it, and the agent type. */
  subagent?: SubagentLink
}

/** How a child session names where it came from (src/subagents). */
export interface SubagentLink {
  parent: string
  callId: string
  agent: string
}

/**
 * The data of each event type. Other modules add types by augmenting this interface
 * (`declare module '../session/events.js' { interface EventDataMap { 'x/y': {...} } }`) and adding the type to the
 * known lists below, so the loader knows them.
 */
export interface EventDataMap {
  'turn/start': { turn: number }
  'turn/end': { turn: number; reason: TurnEndReason; error?: LoggedError }
  'step/start': { turn: number; step: number }
  'step/end': { turn: number; step: number }
  'user/message': { id: string; content: InputBlock[]; source: Source }
  'context/message': { id: string; content: InputBlock[]; source: Source; meta?: JsonValue }
  'steering/message': { id: string; turn: number; content: InputBlock[]; source: Source }
  'assistant/message': { turn: number; step: number; message: AssistantMessage; usage?: Usage; interrupted?: boolean }
  'tool/call': {
    turn: number
    step: number
    callId: string
    name: string
    arguments: string
    /** Arguments a `preTool` listener substituted (a hook's `updatedInput`); the tool ran with these. */
    rewritten?: { arguments: string; by: string }
  }
  'tool/result': {
    turn: number
    step: number
    callId: string
    content: InputBlock[]
    isError: boolean
    error?: LoggedError
    meta?: JsonValue
  }
  /** `wire` names the adapter whose `body` turned requests into bytes, so a request can be re-derived. */
  'request/header': { reason: string; config: ModelConfig; system: string; tools: ToolSchema[]; wire?: Wire }
  /** `purpose` `compaction`: the summary request of the open compaction, not a step's request. */
  'request/sent': { turn: number; step: number; sha256: string; bytes: number; purpose?: 'compaction' }
  'inbox/queued': { id: string; verb: InboxVerb; content: InputBlock[]; source: Source }
  'inbox/dequeued': { id: string; reason: 'delivered' | 'withdrawn' | 'rejected' }
  'hook/invoked': { id: string; event: string; handler: string; sourceFile: string }
  'hook/result': {
    id: string
    event: string
    decision: string
    exitCode: number | null
    durationMs: number
    stderr?: string
    reason?: string
  }
  /**
   * Opens a compaction. `mode` `summary` asks the model for a summary of surface entries `start..end` with
   * `instruction` as the final message; `trim` shortens old tool results in that range without a model call.
   */
  'compaction/start': { id: string; trigger: string; start: number; end: number; mode?: 'summary' | 'trim'; instruction?: string }
  /**
   * `usage` is the summary request's, when one was made, and `model` the model that answered it, so every cost figure
   * counts the call (`sideRequestUsage`). Logs written before `model` existed hold only `usage`.
   */
  'compaction/end': { id: string; outcome: 'replaced' | 'failed' | 'no-gain' | 'blocked'; message?: string; usage?: Usage; model?: string }
  'llm/retry': { turn: number; step: number; attempt: number; delayMs: number; error: LoggedError }
  'todo/write': { todos: { content: string; status: 'pending' | 'in_progress' | 'completed' }[] }
  /**
   * The session's name in listings, the latest one winning. Without `by` a person chose it (a rename). `by` `model`:
   * the title request of src/titles made it, and `model` and `usage` are that request's, so every cost figure counts
   * the call (`sideRequestUsage`). Logs written before these fields existed hold only `title`.
   */
  'session/title': { title: string; by?: 'model'; model?: string; usage?: Usage }
  /**
   * A title request (src/titles) gave no title: it failed, answered nothing usable, or a rename landed while it ran.
   * `error.message` is the one sentence that says which; `usage` is what the call used when the model reported it.
   * Written `ignorable`, so a Rein that predates it still loads the log.
   */
  'title/failed': { model: string; usage?: Usage; error: LoggedError }
  'permission/mode': { mode: string; previous?: string }
  /** A plan `exit_plan_mode` put to the user, and what they chose (src/plan). Never projected: the call carries the plan. */
  'plan/reviewed': {
    callId: string
    plan: string
    outcome: 'approved' | 'kept-planning' | 'unanswered'
    mode?: 'default' | 'accept-edits'
    feedback?: string
  }
  /** A `task` call started a child session (src/subagents). */
  'subagent/start': { callId: string; child: string; agent: string; description: string }
  /**
   * The child's run ended. `outcome` is its last turn's end reason, or `unknown` when repair found it cut off;
   * `usage` and `cost` (USD) sum the child's own assistant messages.
   */
  'subagent/end': { callId: string; child: string; outcome: string; usage: Usage; cost: number }
  /**
   * The workspace was snapshotted before the step's first mutating tool (src/checkpoints). `commit` names the
   * snapshot in `$REIN_HOME/checkpoints/<workspace>`; `files` is how many files it holds; `skipped` names what it left
   * out (over the size limit, nested repositories). `error` instead of `commit`: the snapshot failed, the step ran on.
   */
  'checkpoint/created': {
    turn: number
    step: number
    commit?: string
    files?: number
    skipped?: { path: string; reason: string; bytes?: number }[]
    error?: string
  }
  /**
   * What the step's tools changed in the workspace, compared with the step's snapshot. `after` gives the git blob id
   * each changed path held right after the step (null: gone), so a rewind can tell a later edit by someone else from
   * the agent's own; logs written before it existed lack it (docs/checkpoints.md says what a rewind assumes then).
   */
  'checkpoint/changes': {
    turn: number
    step: number
    paths: { path: string; kind: 'added' | 'modified' | 'deleted' }[]
    after?: { path: string; id: string | null }[]
  }
  /**
   * A restore of the code (a rewind, or the undo of one) is about to touch the first file: logged and synced before
   * it does (src/checkpoints/rewind-code.ts). `before` is the snapshot of the workspace just now, what `rein rewind
   * --undo` restores if the restore is interrupted; `target` the snapshot being restored. `of` says which command:
   * a rewind to `turn`, or the undo of the rewind (or interrupted restore) logged at seq `rewind`. `paths` are the
   * paths it goes on to write or remove, in order, and `after` what each will hold; `token` names its temporary
   * files (`.~rein-<token>-<n>` beside path `n`). The `checkpoint/rewind` or `checkpoint/rewind-undone` that names
   * this seq as its `point` says the restore finished; without one it was interrupted.
   */
  'checkpoint/undo-point': {
    of: 'rewind' | 'undo'
    turn: number
    rewind?: number
    target: string
    before: string
    paths: { path: string; kind: 'added' | 'modified' | 'deleted' }[]
    after: { path: string; id: string | null }[]
    token: string
    conversation?: boolean
  }
  /**
   * The workspace, the conversation or both went back to the start of `turn` (src/checkpoints/rewind.ts). Logged in
   * the session the rewind ran in and, when there is one, in the fork it made (which names the source in its
   * header). `target` is the snapshot restored and `before` the snapshot taken just before, which an undo restores;
   * both absent when only the conversation went back. `changes` is what the restore did, seen from the target;
   * `conflicts` the files changed since Rein last wrote them, of which `kept` were left as they were; `after` the
   * blob id each restored path holds now. `fork` is the session the conversation continues in.
   */
  'checkpoint/rewind': {
    turn: number
    target?: string
    before?: string
    changes?: { path: string; kind: 'added' | 'modified' | 'deleted' }[]
    conflicts?: string[]
    kept?: string[]
    after?: { path: string; id: string | null }[]
    fork?: { id: string; seq: number | null }
    /** The seq of the `checkpoint/undo-point` this rewind's restore logged first (absent in older logs). */
    point?: number
  }
  /**
   * The code rewind logged at seq `rewind` was undone: the workspace went back to that rewind's `before`. `rewind`
   * may also name a `checkpoint/undo-point` whose restore was interrupted. `before` here is the snapshot taken just
   * before the undo; the other fields read as in `checkpoint/rewind`.
   */
  'checkpoint/rewind-undone': {
    rewind: number
    target: string
    before: string
    changes: { path: string; kind: 'added' | 'modified' | 'deleted' }[]
    conflicts: string[]
    kept: string[]
    after: { path: string; id: string | null }[]
    /** The seq of the `checkpoint/undo-point` this undo's restore logged first (absent in older logs). */
    point?: number
  }
}

export type InboxVerb = 'followUp' | 'steer' | 'inject'

export type EventType = keyof EventDataMap

/** One durable record of type `T`. `seq` is the record's index in the log: contiguous from 0, never reused. */
export interface EventRecord<T extends EventType> {
  seq: number
  time: number
  type: T
  data: EventDataMap[T]
  /** Present on surface events only, and on every one of them. */
  surfaceOp?: SurfaceOp
  /** An event a reader may skip when it does not know the type. */
  ignorable?: true
}

/**
 * One durable record. Without a type argument this is the discriminated union of every event type, so
 * `if (event.type === 'tool/call')` narrows `event.data` with no cast; `SessionEvent<'a' | 'b'>` is the union of those two.
 */
export type SessionEvent<T extends EventType = EventType> = { [K in T]: EventRecord<K> }[T]

/** The event types that enter the surface and so reach the model. */
export const SURFACE_TYPES = [
  'user/message',
  'context/message',
  'steering/message',
  'assistant/message',
  'tool/result',
] as const
export type SurfaceType = (typeof SURFACE_TYPES)[number]
export type SurfaceEvent = SessionEvent<SurfaceType>

/** The same union as `SessionEvent`; kept so existing imports read on. */
export type AnyEvent = SessionEvent

const knownTypes = new Map<string, { surface: boolean }>()
for (const type of [
  'turn/start',
  'turn/end',
  'step/start',
  'step/end',
  'tool/call',
  'request/header',
  'request/sent',
  'inbox/queued',
  'inbox/dequeued',
  'hook/invoked',
  'hook/result',
  'compaction/start',
  'compaction/end',
  'llm/retry',
  'todo/write',
  'session/title',
  'title/failed',
  'permission/mode',
  'plan/reviewed',
  'subagent/start',
  'subagent/end',
  'checkpoint/created',
  'checkpoint/changes',
  'checkpoint/undo-point',
  'checkpoint/rewind',
  'checkpoint/rewind-undone',
]) {
  knownTypes.set(type, { surface: false })
}
for (const type of SURFACE_TYPES) knownTypes.set(type, { surface: true })

export function isKnownType(type: string): boolean {
  return knownTypes.has(type)
}

export function isSurfaceType(type: string): type is SurfaceType {
  return knownTypes.get(type)?.surface === true
}

export function isSurfaceEvent(event: SessionEvent): event is SurfaceEvent {
  return isSurfaceType(event.type)
}

/**
 * The usage of a model request the log records outside the turns' steps (a title request, a compaction's summary),
 * with the model that answered it: every place that sums a session's cost adds these to its steps. Undefined for
 * every other event, for a title a person chose, and for a summary logged before `compaction/end` named its model.
 */
export function sideRequestUsage(event: SessionEvent): SideRequest | undefined {
  if (event.type !== 'session/title' && event.type !== 'title/failed' && event.type !== 'compaction/end') return undefined
  const { model, usage } = event.data
  if (model === undefined || usage === undefined) return undefined
  return { kind: event.type === 'compaction/end' ? 'compaction' : 'title', model, usage }
}

export interface SideRequest {
  kind: 'title' | 'compaction'
  model: string
  usage: Usage
}
