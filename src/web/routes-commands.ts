import type { Context, Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { z } from 'zod'
import { commandsAndSkills } from '../frontend/commands/custom.js'
import { runCatalogCommand } from '../frontend/commands/one-shot.js'
import { listCommands } from '../frontend/commands/run.js'
import { WebError } from './directories.js'
import type { LiveSession } from './live-session.js'
import type { WebContext } from './web-context.js'

/** The longest command request accepted, in bytes: a command's argument is a line a person types, not a file. */
export const COMMAND_BODY_LIMIT = 64 * 1024

const runSchema = z.object({ name: z.string().min(1, 'is empty').max(100, 'is over 100 characters'), args: z.string().max(COMMAND_BODY_LIMIT).optional() }).strict()

/**
 * The built-in commands of the catalog (src/frontend/commands) for the page: `GET /api/sessions/:id/commands` lists
 * those the web offers (then the session's custom commands and skills), `POST /api/sessions/:id/commands` runs one
 * and answers its replies. Behind the same token, Host and Origin checks as every other route (guard.ts). An unknown
 * command, a bad argument and a command that refuses (a retired model, a turn running) are a 400 with one sentence.
 */
export function commandRoutes(
  app: Hono,
  ctx: WebContext,
  live: (id: string) => Promise<LiveSession>,
  body: <T>(c: Context, schema: z.ZodType<T>) => Promise<T>,
): void {
  app.get('/api/sessions/:id/commands', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const cwd = (await ctx.reader.read(id)).header.cwd
    return c.json({ builtins: listCommands('web', cwd), ...commandsAndSkills(cwd) })
  })

  app.post(
    '/api/sessions/:id/commands',
    bodyLimit({
      maxSize: COMMAND_BODY_LIMIT,
      onError: (c) => c.json({ error: `Refused: a command request may be at most ${COMMAND_BODY_LIMIT / 1024} KB.` }, 413),
    }),
    async (c) => {
      const { name, args } = await body(c, runSchema)
      const session = await live(c.req.param('id'))
      const outcome = await runCatalogCommand(session.opened.agent, 'web', name.replace(/^\//, ''), args ?? '', ctx.home)
      if ('refused' in outcome) throw new WebError(400, outcome.refused)
      session.sendState()
      return c.json(outcome)
    },
  )
}
