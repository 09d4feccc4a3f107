import { createHash } from 'node:crypto'
import type { Hono } from 'hono'
import { KNOWN_MODEL_IDS } from '../llm/catalog.js'
import { PERMISSION_MODES } from '../agent/types.js'
import { renderMarkdown } from '../frontend/session-transcript.js'
import type { WebContext } from './web-context.js'
import { WebError } from './directories.js'
import { stepDiffRoute } from './routes-step-diff.js'
import { inspectorRoutes } from './routes-inspector.js'

export const EFFORTS = ['off', 'low', 'high', 'max'] as const

/** Most events one page of `/events` returns. */
export const PAGE_LIMIT = 2_000

/** Routes that only read: the listing, a session's events in pages, its export, the inspector. */
export function readRoutes(app: Hono, ctx: WebContext): void {
  app.get('/api/info', (c) =>
    c.json({ root: ctx.root, all: ctx.all, models: KNOWN_MODEL_IDS, efforts: EFFORTS, modes: PERMISSION_MODES }),
  )

  // The page re-asks when the list stream names a new ETag, and on reload: an unchanged listing answers 304 with no body.
  app.get('/api/sessions', async (c) => {
    const { body, etag } = await listingEntity(ctx)
    c.header('ETag', etag)
    if (sameEntity(c.req.header('if-none-match'), etag)) return c.body(null, 304)
    c.header('Content-Type', 'application/json')
    return c.body(body)
  })

  app.get('/api/sessions/:id', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const log = await ctx.reader.read(id)
    const live = ctx.host.get(id)
    return c.json({
      id,
      cwd: log.header.cwd,
      parent: log.header.parent,
      createdAt: log.header.createdAt,
      total: log.events.length,
      title: titleOf(log.events),
      state: live ? live.state() : { hosted: false, ...(await ctx.loggedState(id, log.events)) },
    })
  })

  app.get('/api/sessions/:id/events', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const log = await ctx.reader.read(id)
    const total = log.events.length
    const before = boundedInt(c.req.query('before'), total, 0, total)
    const limit = boundedInt(c.req.query('limit'), 500, 1, PAGE_LIMIT)
    const start = Math.max(0, before - limit)
    const shower = ctx.shower(id, log.header.cwd, () => log.events)
    return c.json({ total, start, events: log.events.slice(start, before).map((e) => shower.show(e)) })
  })

  app.get('/api/sessions/:id/export', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const log = await ctx.reader.read(id)
    const format = c.req.query('format') ?? 'md'
    if (format !== 'md' && format !== 'jsonl') throw new WebError(400, 'Export as md or jsonl.')
    const body =
      format === 'md'
        ? renderMarkdown(log.header, log.events)
        : [log.header, ...log.events].map((e) => `${JSON.stringify(e)}\n`).join('')
    c.header('Content-Type', format === 'md' ? 'text/markdown; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
    c.header('Content-Disposition', `attachment; filename="rein-${id}.${format}"`)
    return c.body(body)
  })

  inspectorRoutes(app, ctx)
  stepDiffRoute(app, ctx)
}

/** The listing's JSON and its ETag (a hash of the JSON), as `GET /api/sessions` answers and the list stream names. */
export async function listingEntity(ctx: WebContext): Promise<{ body: string; etag: string }> {
  const body = JSON.stringify({ sessions: await ctx.listing() })
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
}

/**
 * Whether `If-None-Match` names `etag`. The weak form counts: compression marks the ETag weak (`W/"…"`), and a
 * listing is equal when its JSON is, whatever encoding carried it.
 */
export function sameEntity(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')
}

/** A whole number from a query parameter, clamped to `min..max`; `fallback` when absent or not a number. */
export function boundedInt(value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !/^\d{1,15}$/.test(value)) return fallback
  return Math.min(max, Math.max(min, Number(value)))
}

/** The latest `session/title`, else the first prompt's first line (as the listing shows it). */
function titleOf(events: readonly { type: string; data: unknown }[]): string {
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i].type === 'session/title') return (events[i].data as { title: string }).title
  }
  const prompt = events.find((e) => e.type === 'user/message')?.data as { content?: { type: string; text?: string }[] } | undefined
  const text = prompt?.content?.find((b) => b.type === 'text')?.text?.trim().split('\n')[0] ?? ''
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}
