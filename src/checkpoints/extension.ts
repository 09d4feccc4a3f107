import type { Extension, ExtensionContext, ToolCallInfo } from '../agent/extensions.js'
import { toolCallsOf } from '../llm/messages.js'
import type { Checkpoints, Snapshot } from './engine.js'
import { rewindCommand } from './rewind.js'
import type { RewindHistory } from './rewind-history.js'
import { REWIND_COMMAND, UNDO_REWIND_COMMAND } from './rewind-types.js'
import { undoRewindCommand } from './rewind-undo.js'

/** How long a snapshot may hold up a step before the step runs without one (ms). */
export const DEFAULT_SNAPSHOT_BUDGET_MS = 10_000

export interface CheckpointExtensionOptions {
  engine: Checkpoints
  budgetMs?: number
  /** The session's log and forks of it: with it, the extension offers the `rewind` and `rewind-undo` commands. */
  history?: RewindHistory
}

/** A call that may change the workspace: a tool not marked read-only, or one that edits files or runs commands. */
export function mayMutate(call: ToolCallInfo): boolean {
  const tool = call.tool
  if (!tool) return false
  return !tool.readOnly || tool.category === 'edit' || tool.category === 'exec'
}

/**
 * Checkpoints per step (docs/checkpoints.md). What holds:
 * - Before the first call of a step that may mutate the workspace, one snapshot is taken and logged as
 *   `checkpoint/created`; read-only steps take none.
 * - After that step's tools, `checkpoint/changes` logs what differs from the snapshot: when the step's last call has
 *   run (before `step/end`), or, when that call never ran, after `step/end` and before the next step starts; never
 *   inside another turn.
 * - A snapshot that fails or overruns its budget is logged (`checkpoint/created` with `error`) and reported to the
 *   user once per session; the step always runs. Nothing here throws into the loop.
 * - Between a step's last tool and its next request only the listing runs; the index writes it leaves start once
 *   that request is sent (or the turn ends), while the model thinks.
 * - When the session ends, work no step waits for is abandoned (`Checkpoints.close`): the first staging when no
 *   mutating call needed it, a snapshot that overran, deferred index writes. A step's snapshot that a mutating call
 *   waits for is never abandoned.
 */
export function checkpointExtension(options: CheckpointExtensionOptions): Extension {
  const { engine } = options
  const budgetMs = options.budgetMs ?? DEFAULT_SNAPSHOT_BUDGET_MS
  let taken: { turn: number; step: number; commit?: string; listed?: boolean } | undefined
  let pending: Promise<void> = Promise.resolve()
  let failureReported = false
  /** Snapshots that overran: no step waits for them any more, so the session's end stops them. */
  const overrun = new Set<AbortController>()
  const reportedSkips = new Set<string>()

  const fail = (context: ExtensionContext, turn: number, step: number, message: string): void => {
    context.record('checkpoint/created', { turn, step, error: message })
    if (failureReported) return
    failureReported = true
    context.notify('warning', `${message} The step runs on without a checkpoint; later steps keep trying.`)
  }

  const snapshot = async (call: ToolCallInfo, context: ExtensionContext): Promise<void> => {
    await pending
    const { turn, step } = call
    taken = { turn, step }
    let timer: NodeJS.Timeout | undefined
    const budget = new Promise<'overrun'>((resolve) => (timer = setTimeout(() => resolve('overrun'), budgetMs)))
    const stop = new AbortController()
    const attempt = engine.snapshot(`turn ${turn} step ${step}`, { reuse: true, signal: stop.signal })
    let result: Snapshot | 'overrun'
    try {
      result = await Promise.race([attempt, budget])
    } catch (error) {
      for (const notice of engine.takeNotices()) context.notify('warning', notice)
      fail(context, turn, step, `Checkpoint failed: ${error instanceof Error ? error.message : String(error)}.`)
      return
    } finally {
      clearTimeout(timer)
    }
    if (result === 'overrun') {
      // The snapshot finishes in the background and later engine calls queue behind it; its outcome no longer
      // matters, since the log already says this step ran without a checkpoint.
      overrun.add(stop)
      attempt.then(
        () => overrun.delete(stop),
        () => overrun.delete(stop),
      )
      fail(context, turn, step, `Checkpoint took longer than ${budgetMs / 1000} s and was not waited for.`)
      return
    }
    taken.commit = result.commit
    for (const notice of engine.takeNotices()) context.notify('warning', notice)
    context.record('checkpoint/created', {
      turn,
      step,
      commit: result.commit,
      files: result.files,
      ...(result.skipped.length ? { skipped: result.skipped.map((s) => ({ ...s })) } : {}),
    })
    const fresh = result.skipped.filter((s) => !reportedSkips.has(s.path))
    for (const s of fresh) reportedSkips.add(s.path)
    if (fresh.length) context.notify('info', `Checkpoints leave out ${fresh.map(describeSkip).join(', ')}; undo cannot restore them.`)
  }

  const changesOf = (turn: number, step: number, commit: string, context: ExtensionContext): Promise<void> =>
    engine.stepChanges(commit).then(
      (changes) => {
        for (const notice of engine.takeNotices()) context.notify('warning', notice)
        // A late listing (the fallback below) must not land inside another turn: the log would not verify.
        const open = openTurn(context)
        if (open !== undefined && open !== turn) return
        context.record('checkpoint/changes', {
          turn,
          step,
          paths: changes.map(({ path, kind }) => ({ path, kind })),
          // What each path holds now: a rewind compares it with the workspace to find later edits by someone else.
          after: changes.map(({ path, now }) => ({ path, id: now })),
        })
      },
      (error: unknown) => context.notify('warning', `Could not list what step ${step} changed: ${error instanceof Error ? error.message : String(error)}.`),
    )

  return {
    name: 'checkpoints',
    ...(options.history
      ? {
          commands: {
            [REWIND_COMMAND]: rewindCommand({ engine, history: options.history }),
            [UNDO_REWIND_COMMAND]: undoRewindCommand({ engine, history: options.history }),
          },
        }
      : {}),
    async preTool(call, context) {
      // The change feed and the session's first staging start with its first tool call, in the background: a
      // session that only talks never pays for them, one that reads first has its first snapshot under way while
      // the model thinks (the first mutating step waits only for what is left), and from then on a step's snapshot
      // reuses the last listing while the feed is quiet.
      engine.watch()
      if (!mayMutate(call)) return
      if (taken && taken.turn === call.turn && taken.step === call.step) return
      await snapshot(call, context)
    },
    // The step's last call to reach postTool lists the changes, so they are logged before the step ends.
    async postTool(call, _result, context) {
      if (!taken?.commit || taken.listed || taken.turn !== call.turn || taken.step !== call.step) return
      if (lastCallOfStep(context) !== call.callId) return
      taken.listed = true
      await pending
      await changesOf(call.turn, call.step, taken.commit, context)
    },
    // When the last call never ran (refused, cancelled), the listing follows the step's end instead.
    event(event, context) {
      if (event.type === 'request/sent' || event.type === 'turn/end') engine.proceed()
      if (event.type !== 'step/end' || !taken?.commit || taken.listed) return
      if (taken.turn !== event.data.turn || taken.step !== event.data.step) return
      const { turn, step, commit } = taken
      taken.listed = true
      pending = pending.then(() => changesOf(turn, step, commit, context))
    },
    async preStep() {
      await pending
    },
    async sessionEnd() {
      await pending
      for (const stop of overrun) stop.abort()
      await engine.close()
    },
  }
}

/** The id of the last tool call the step's assistant message asked for. */
function lastCallOfStep(context: ExtensionContext): string | undefined {
  const message = context.session.last('assistant/message')
  return message ? toolCallsOf(message.data.message).at(-1)?.id : undefined
}

/** The turn the log has open, if any. */
function openTurn(context: ExtensionContext): number | undefined {
  const start = context.session.last('turn/start')
  const end = context.session.last('turn/end')
  if (!start || (end && end.seq > start.seq)) return undefined
  return start.data.turn
}

function describeSkip(skip: { path: string; reason: string; bytes?: number }): string {
  if (skip.reason === 'too-large') return `${skip.path} (${Math.ceil((skip.bytes ?? 0) / 1024 / 1024)} MiB, over the size limit)`
  return `${skip.path} (a nested git repository)`
}
