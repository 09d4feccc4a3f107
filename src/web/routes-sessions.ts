import type { Context, Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { z } from 'zod'
import { Session } from '../session/session.js'
import { WebError } from './directories.js'
import { listStreamRoute } from './list-stream-route.js'
import type { WebContext } from './web-context.js'

/** Most characters a title may have; the list cuts long ones with an ellipsis anyway. */
export const TITLE_LIMIT = 200
// C0 and C1 controls, DEL, and the line and paragraph separators: a title is one line of plain text.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/

const schemas = {
  title: z.object({
    title: z
      .string()
      .transform((t) => t.trim())
      .pipe(z.string().min(1, 'is empty').max(TITLE_LIMIT, `is over ${TITLE_LIMIT} characters`).refine((t) => !CONTROL.test(t), 'holds a control character')),
  }),
  archive: z.object({ archived: z.boolean() }).strict(),
}

/** Bytes a title or archive request may have: far above a title's limit, far below a flood. */
const BODY_LIMIT = 16 * 1024

type Body = <T>(c: Context, schema: z.ZodType<T>) => Promise<T>

/**
 * The list's own routes: rename (a `session/title` event, so every surface and `rein sessions list` show it), archive
 * (hidden from the page's default list; `archived.ts`), delete (the log, through the store), and the list stream
 * (`list-stream-route.ts`).
 */
export function sessionListRoutes(app: Hono, ctx: WebContext, body: Body): void {
  const small = bodyLimit({
    maxSize: BODY_LIMIT,
    onError: (c) => c.json({ error: `Refused: a title or archive request may be at most ${BODY_LIMIT / 1024} KB.` }, 413),
  })

  app.post('/api/sessions/:id/title', small, async (c) => {
    const { title } = await body(c, schemas.title)
    const id = await ctx.visibleId(c.req.param('id'))
    const live = ctx.host.get(id)
    if (live) {
      // Held here: the agent's session is the only writer; the event is appended between its other events.
      live.opened.agent.session.append('session/title', { title })
      await live.opened.agent.session.flush()
    } else {
      // Not held: open the log for appending just for this (the lease refuses a session another process writes).
      const session = await Session.load(ctx.store, id)
      try {
        session.append('session/title', { title })
      } finally {
        await session.close()
      }
    }
    ctx.changes.nudge()
    return c.json({ id, title })
  })

  app.post('/api/sessions/:id/archive', small, async (c) => {
    const { archived } = await body(c, schemas.archive)
    const id = await ctx.visibleId(c.req.param('id'))
    ctx.archived.set(id, archived)
    ctx.changes.nudge()
    return c.json({ id, archived })
  })

  // A running session cannot be deleted: its turn would go on writing a log that no longer exists.
  app.delete('/api/sessions/:id', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const live = ctx.host.get(id)
    if (live?.opened.agent.busy) throw new WebError(409, `Session ${id} is running; cancel its turn (Esc) before deleting it.`)
    if (live) await ctx.host.release(id)
    await ctx.store.remove(id)
    ctx.archived.set(id, false)
    ctx.changes.nudge()
    return c.json({ id, deleted: true })
  })

  listStreamRoute(app, ctx)
}
