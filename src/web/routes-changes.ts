import type { Hono } from 'hono'
import { Checkpoints } from '../checkpoints/engine.js'
import { SnapshotFiles } from '../checkpoints/file-at.js'
import { stepFiles, unifiedStepDiff } from '../checkpoints/step-diff.js'
import { WebError } from './directories.js'
import { changedFiles, fileSpan } from './session-changes.js'
import type { WebContext } from './web-context.js'

/**
 * The changed-files review (docs/web.md, "Changed files"):
 * - `GET /api/sessions/:id/changes`: every file the session's steps changed, with the steps that changed it;
 * - `GET /api/sessions/:id/changes/diff?path=`: one file's diff over the whole session, from the snapshot before the
 *   first step that changed it to the state after the last. Only paths the log names are diffed.
 * Both only read: no lease is taken, and a session of another workspace is refused as every route refuses it.
 */
export function changesRoutes(app: Hono, ctx: WebContext): void {
  app.get('/api/sessions/:id/changes', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const log = await ctx.reader.read(id)
    return c.json({ files: changedFiles(log.events) })
  })

  app.get('/api/sessions/:id/changes/diff', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const path = c.req.query('path') ?? ''
    const log = await ctx.reader.read(id)
    const file = changedFiles(log.events).find((f) => f.path === path)
    if (!file) throw new WebError(404, `This session changed no file ${JSON.stringify(path)}.`)
    const span = fileSpan(log.events, file)
    if (!span) throw new WebError(409, `The snapshot before ${path} was first changed is not logged; only its steps are known.`)
    const cwd = log.header.cwd
    const files = new SnapshotFiles(new Checkpoints({ home: ctx.home, cwd }).gitDir, cwd)
    let diff: string
    try {
      diff = unifiedStepDiff(await stepFiles(files, { ...span, paths: [{ path: file.path, kind: file.kind }] }))
    } catch {
      throw new WebError(409, `The snapshot before ${path} was first changed is no longer stored (pruned, or another REIN_HOME).`)
    }
    return c.json({ path: file.path, kind: file.kind, steps: file.steps, after: span.after === 'workspace' ? 'workspace' : 'snapshot', diff })
  })
}
