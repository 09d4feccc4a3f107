import type { Context, Hono } from 'hono'
import { z } from 'zod'
import type { CommandResult } from '../agent/extensions.js'
import { REWIND_COMMAND, UNDO_REWIND_COMMAND, type RewindOutcome } from '../checkpoints/rewind-types.js'
import { checkpointTurns } from '../checkpoints/turns.js'
import { latestUndoable } from '../checkpoints/undo-points.js'
import type { SessionEvent } from '../session/events.js'
import { WebError } from './directories.js'
import type { LiveSession } from './live-session.js'
import type { WebContext } from './web-context.js'

const conflicts = z.enum(['ask', 'overwrite', 'keep']).optional()
const schemas = {
  rewind: z.strictObject({
    turn: z.number().int().min(1),
    code: z.boolean().optional(),
    conversation: z.boolean().optional(),
    conflicts,
    dryRun: z.boolean().optional(),
  }),
  undo: z.strictObject({ conflicts, dryRun: z.boolean().optional() }),
}

/**
 * Rewind from the page (docs/web.md): the turns a rewind can go back to, a rewind (dry run first, then for real)
 * and its undo. The writes go through the agent's `rewind` / `rewind-undo` commands, in the session this server
 * holds (opened on demand, as every write route does); conflicts are asked through the page's permission prompt.
 */
export function rewindRoutes(
  app: Hono,
  ctx: WebContext,
  live: (id: string) => Promise<LiveSession>,
  body: <T>(c: Context, schema: z.ZodType<T>) => Promise<T>,
): void {
  app.get('/api/sessions/:id/turns', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const log = await ctx.reader.read(id)
    return c.json({ turns: checkpointTurns(log.events), undoable: undoableFor(log.events) })
  })

  app.post('/api/sessions/:id/rewind', async (c) => {
    const request = await body(c, schemas.rewind)
    const session = await live(c.req.param('id'))
    return c.json(await run(session, REWIND_COMMAND, request))
  })

  app.post('/api/sessions/:id/rewind-undo', async (c) => {
    const request = await body(c, schemas.undo)
    const session = await live(c.req.param('id'))
    return c.json(await run(session, UNDO_REWIND_COMMAND, request))
  })
}

/** Runs the command; a refusal (no such turn, a turn running, a snapshot gone) becomes one sentence with its status. */
async function run(session: LiveSession, name: string, args: Record<string, string | number | boolean | undefined>): Promise<{ outcome: string; message: string } & Partial<RewindOutcome>> {
  const agent = session.opened.agent
  if (agent.busy) throw new WebError(409, 'Cannot rewind while a turn runs; cancel it or wait for it to end.')
  let result: CommandResult
  try {
    result = await agent.runCommand(name, { args: Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)) as Record<string, string | number | boolean> })
  } catch (error) {
    const code = (error as { code?: unknown }).code
    const message = error instanceof Error ? error.message : String(error)
    throw new WebError(code === 'invalid-request' || code === 'no-such-turn' ? 400 : 409, message)
  } finally {
    session.sendState()
  }
  return { outcome: result.outcome, message: result.message, ...((result.data ?? {}) as Partial<RewindOutcome>) }
}

/** What "Undo rewind" offers: the rewind (or interrupted restore) `rewind-undo` would undo, as the page shows it. */
export function undoableFor(events: readonly SessionEvent[]): { seq: number; turn: number; interrupted: boolean } | null {
  const next = latestUndoable(events)
  return next ? { seq: next.seq, turn: next.turn, interrupted: next.point !== undefined } : null
}
