import type { Context, Hono } from 'hono'
import { z } from 'zod'
import { PERMISSION_MODES, type PermissionMode } from '../agent/types.js'
import type { Effort } from '../llm/adapter.js'
import { forkSession } from '../session/fork.js'
import { sessionDirectory, WebError } from './directories.js'
import { EFFORTS } from './routes-read.js'
import { textOf, type LiveSession } from './live-session.js'
import type { WebContext } from './web-context.js'
import { rewindRoutes } from './routes-rewind.js'
import { commandRoutes } from './routes-commands.js'
import { modelRefusal } from '../frontend/commands/model-check.js'
import { sessionListRoutes } from './routes-sessions.js'

const text = z.string().min(1, 'is empty').max(1_000_000, 'is over a million characters')
const schemas = {
  start: z.object({ cwd: z.string() }),
  input: z.object({ text, how: z.enum(['enter', 'steer', 'followUp']) }),
  answer: z.object({ outcome: z.enum(['allow-once', 'allow-always', 'deny']), note: z.string().max(10_000).optional() }),
  settings: z
    .object({
      permissionMode: z.enum(PERMISSION_MODES as [PermissionMode, ...PermissionMode[]]).optional(),
      model: z.string().regex(/^[A-Za-z0-9._:/-]{1,100}$/, 'is not a model id').optional(),
      effort: z.enum(EFFORTS).optional(),
    })
    .strict(),
  fork: z.object({ seq: z.number().int().nonnegative().optional() }),
  compact: z.object({ focus: z.string().max(10_000).optional() }),
}

/** The request body, checked; any mistake becomes one sentence naming the field. */
async function body<T>(c: Context, schema: z.ZodType<T>): Promise<T> {
  let raw: unknown
  try {
    raw = await c.req.json()
  } catch {
    throw new WebError(400, 'The request body is not JSON.')
  }
  const checked = schema.safeParse(raw)
  if (!checked.success) {
    throw new WebError(400, `Invalid request: ${checked.error.issues.map((i) => `${i.path.join('.') || 'body'} ${i.message}`).join('; ')}.`)
  }
  return checked.data
}

/**
 * Routes that change something. Each goes through the same agent API the terminal UI and RPC mode use: follow-up,
 * steer, cancel, the permission asker, `setPermissionMode`, `setModel`, and `forkSession`.
 */
export function writeRoutes(app: Hono, ctx: WebContext): void {
  const live = async (id: string): Promise<LiveSession> => {
    const visible = await ctx.visibleId(id)
    return ctx.host.get(visible) ?? ctx.host.resume(visible, (await ctx.reader.read(visible)).header.cwd)
  }

  app.post('/api/sessions', async (c) => {
    const { cwd } = await body(c, schemas.start)
    const session = await ctx.host.start(sessionDirectory(ctx.root, cwd, ctx.home))
    ctx.changes.nudge()
    return c.json({ id: session.id }, 201)
  })

  app.post('/api/sessions/:id/input', async (c) => {
    const input = await body(c, schemas.input)
    const session = await live(c.req.param('id'))
    const agent = session.opened.agent
    // Enter steers while the agent works and starts a turn when it is idle; the second button always queues.
    const how = input.how === 'enter' ? (agent.busy ? 'steer' : 'followUp') : input.how
    const messageId = how === 'steer' ? agent.steer(input.text) : agent.followUp(input.text)
    session.sendState()
    return c.json({ messageId, delivered: how })
  })

  app.post('/api/sessions/:id/cancel', async (c) => {
    const session = ctx.host.get(await ctx.visibleId(c.req.param('id')))
    session?.opened.agent.cancel()
    return c.json({ cancelled: session?.opened.agent.busy ?? false })
  })

  app.post('/api/sessions/:id/withdraw/:item', async (c) => {
    const session = ctx.host.get(await ctx.visibleId(c.req.param('id')))
    const item = session?.opened.agent.withdraw(c.req.param('item'))
    if (!session || !item) throw new WebError(409, 'That input is no longer queued: it was delivered, or withdrawn by another page.')
    session.sendState()
    return c.json({ text: textOf(item.content) })
  })

  app.post('/api/sessions/:id/compact', async (c) => {
    const { focus } = await body(c, schemas.compact)
    const session = await live(c.req.param('id'))
    if (session.opened.agent.busy) throw new WebError(409, 'Cannot compact while a turn runs; cancel it or wait for it to end.')
    return c.json(await session.opened.agent.compact(focus))
  })

  app.post('/api/sessions/:id/asks/:ask', async (c) => {
    const answer = await body(c, schemas.answer)
    const session = ctx.host.get(await ctx.visibleId(c.req.param('id')))
    const ok = session?.answer(c.req.param('ask'), answer.outcome, answer.note) ?? false
    if (!ok) throw new WebError(409, 'That permission request is no longer waiting: another page answered it, or the turn ended.')
    return c.json({ answered: true })
  })

  app.post('/api/sessions/:id/settings', async (c) => {
    const settings = await body(c, schemas.settings)
    const session = await live(c.req.param('id'))
    const agent = session.opened.agent
    const refusal = settings.model ? modelRefusal(settings.model, { cwd: agent.cwd, home: ctx.home }) : undefined
    if (refusal) throw new WebError(400, refusal)
    if (settings.permissionMode) agent.setPermissionMode(settings.permissionMode)
    if (settings.model || settings.effort) {
      agent.setModel({ ...(settings.model ? { model: settings.model } : {}), ...(settings.effort ? { effort: settings.effort as Effort } : {}) })
    }
    session.sendState()
    return c.json(session.state())
  })

  app.post('/api/sessions/:id/fork', async (c) => {
    const { seq } = await body(c, schemas.fork)
    const id = await ctx.visibleId(c.req.param('id'))
    const log = await ctx.reader.read(id)
    if (seq !== undefined && seq >= log.events.length) throw new WebError(400, `This session has no seq ${seq}.`)
    const at = seq === undefined ? undefined : turnEndAtOrAfter(log.events, seq)
    if (seq !== undefined && at === undefined) throw new WebError(409, 'That message is in the turn still running; fork once it ends, or cancel it.')
    const fork = await forkSession(ctx.store, id, at)
    await fork.close()
    ctx.changes.nudge()
    return c.json({ id: fork.id, parent: id, seq: at ?? null }, 201)
  })

  rewindRoutes(app, ctx, live, body)
  commandRoutes(app, ctx, live, body)
  sessionListRoutes(app, ctx, body)
}

/**
 * The seq to fork at for a message at `seq`: the end of its turn, since a fork may not cut inside a turn. A message
 * outside any turn (context injected before the first prompt) forks right there. Undefined when its turn is open.
 */
export function turnEndAtOrAfter(events: readonly { seq: number; type: string }[], seq: number): number | undefined {
  let open = false
  for (const e of events) {
    if (e.seq > seq) break
    if (e.type === 'turn/start') open = true
    else if (e.type === 'turn/end') open = false
  }
  if (!open) return seq
  return events.find((e) => e.seq > seq && e.type === 'turn/end')?.seq
}
