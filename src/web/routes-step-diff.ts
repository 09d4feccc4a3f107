import type { Hono } from 'hono'
import { Checkpoints } from '../checkpoints/engine.js'
import { SnapshotFiles } from '../checkpoints/file-at.js'
import { stepChanges, stepFiles, unifiedStepDiff } from '../checkpoints/step-diff.js'
import { WebError } from './directories.js'
import type { WebContext } from './web-context.js'

/** Most files one step's diff shows; the rest are named after it. */
export const STEP_DIFF_FILES = 50

/**
 * `GET /api/sessions/:id/steps/:turn/:step/diff`: the unified diff of what one step changed (docs/web.md). "Before"
 * is the snapshot taken before the step; "after" is the next snapshot the session took, or the workspace now when
 * there is none yet. Only the paths the step's `checkpoint/changes` names are diffed.
 */
export function stepDiffRoute(app: Hono, ctx: WebContext): void {
  app.get('/api/sessions/:id/steps/:turn/:step/diff', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const turn = wholeNumber(c.req.param('turn'), 'turn')
    const step = wholeNumber(c.req.param('step'), 'step')
    const log = await ctx.reader.read(id)
    const changes = stepChanges(log.events, turn, step)
    if (!changes) throw new WebError(404, `Step ${step} of turn ${turn} logged no changes to the workspace.`)
    const cwd = log.header.cwd
    const files = new SnapshotFiles(new Checkpoints({ home: ctx.home, cwd }).gitDir, cwd)
    let diff: string
    try {
      diff = unifiedStepDiff(await stepFiles(files, changes, STEP_DIFF_FILES))
    } catch {
      throw new WebError(409, `The snapshot of turn ${turn} step ${step} is no longer stored (pruned, or another REIN_HOME); the changed paths are all that is left.`)
    }
    const omitted = changes.paths.slice(STEP_DIFF_FILES).map((p) => p.path)
    return c.json({ turn, step, after: changes.after === 'workspace' ? 'workspace' : 'snapshot', paths: changes.paths, diff, omitted })
  })
}

function wholeNumber(value: string, name: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new WebError(400, `The ${name} must be a whole number.`)
  return Number(value)
}
