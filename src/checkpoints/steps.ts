import type { SessionEvent } from '../session/events.js'
import type { Change, SkippedPath } from './engine.js'

/**
 * One step that took a snapshot, as the session's log tells it: `checkpoint/created` and, when the step's tools
 * ran, its `checkpoint/changes`. `commit` is absent when the snapshot failed (`error` says why).
 */
export interface CheckpointStep {
  turn: number
  step: number
  commit?: string
  files?: number
  error?: string
  skipped: SkippedPath[]
  changes: Change[]
}

/**
 * The steps of a log that took a snapshot, in log order. Reads only the two checkpoint events; a `changes` event
 * with no snapshot before it in the same step (a damaged log) is ignored.
 */
export function checkpointSteps(events: readonly SessionEvent[]): CheckpointStep[] {
  const steps: CheckpointStep[] = []
  const byStep = new Map<string, CheckpointStep>()
  for (const event of events) {
    if (event.type === 'checkpoint/created') {
      const { turn, step, commit, files, error, skipped } = event.data
      const entry: CheckpointStep = {
        turn,
        step,
        ...(commit !== undefined ? { commit } : {}),
        ...(files !== undefined ? { files } : {}),
        ...(error !== undefined ? { error } : {}),
        skipped: (skipped ?? []).map((s) => ({ path: s.path, reason: s.reason === 'nested-repository' ? 'nested-repository' : 'too-large', ...(s.bytes !== undefined ? { bytes: s.bytes } : {}) })),
        changes: [],
      }
      steps.push(entry)
      byStep.set(`${turn}.${step}`, entry)
    } else if (event.type === 'checkpoint/changes') {
      const entry = byStep.get(`${event.data.turn}.${event.data.step}`)
      if (entry) entry.changes = event.data.paths.map((p) => ({ path: p.path, kind: p.kind }))
    }
  }
  return steps
}
