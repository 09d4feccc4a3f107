import type { Hono } from 'hono'
import { WebError } from './directories.js'
import { MESSAGE_PAGE, MESSAGE_PAGE_MAX } from './inspector.js'
import type { WebContext } from './web-context.js'

/** Bytes per chunk when the exact body streams out. */
const BODY_CHUNK = 64 * 1024

/**
 * The inspector's routes (docs/web.md): every request with its digest check, one request without its body (its
 * header and newest messages), earlier messages a page at a time, and the exact body as a download. Every bad
 * parameter is a 400 naming the range it must lie in; a seq that sent no request is a 404.
 */
export function inspectorRoutes(app: Hono, ctx: WebContext): void {
  app.get('/api/sessions/:id/inspect', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const log = await ctx.reader.read(id)
    return c.json({ steps: ctx.inspector.steps(id, log.version, log.events) })
  })

  app.get('/api/sessions/:id/requests/:seq', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const seq = requestSeq(c.req.param('seq'))
    const log = await ctx.reader.read(id)
    return c.json(ctx.inspector.request(id, log.version, log.events, seq) ?? noRequest(seq))
  })

  app.get('/api/sessions/:id/requests/:seq/messages', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const seq = requestSeq(c.req.param('seq'))
    const limit = wholeQuery(c.req.query('limit'), 'limit', MESSAGE_PAGE, 1, MESSAGE_PAGE_MAX)
    const log = await ctx.reader.read(id)
    const total = ctx.inspector.messageCount(id, log.version, log.events, seq) ?? noRequest(seq)
    const before = wholeQuery(c.req.query('before'), 'before', total, 0, total)
    return c.json(ctx.inspector.messages(id, log.version, log.events, seq, before, limit) ?? noRequest(seq))
  })

  app.get('/api/sessions/:id/requests/:seq/body', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const seq = requestSeq(c.req.param('seq'))
    const log = await ctx.reader.read(id)
    const body = Buffer.from(ctx.inspector.body(id, log.version, log.events, seq) ?? noRequest(seq), 'utf8')
    c.header('Content-Type', 'application/json; charset=utf-8')
    c.header('Content-Disposition', `attachment; filename="rein-${id}-request-${seq}.json"`)
    let at = 0
    return c.body(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          if (at >= body.length) return controller.close()
          controller.enqueue(new Uint8Array(body.subarray(at, at + BODY_CHUNK)))
          at += BODY_CHUNK
        },
      }),
    )
  })
}

function noRequest(seq: number): never {
  throw new WebError(404, `No request was sent at seq ${seq} of this session; the inspector lists the seqs that hold one.`)
}

/** The seq in a request's address: a whole number, or a 400. */
function requestSeq(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new WebError(400, `A request is addressed by the seq of its request/sent, a whole number such as 42, not ${JSON.stringify(value.slice(0, 40))}.`)
  return Number(value)
}

/** A query parameter that must be a whole number from `min` to `max`; `fallback` when absent, else a 400. */
function wholeQuery(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  const n = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN
  if (!(n >= min && n <= max)) throw new WebError(400, `The ${name} parameter must be a whole number from ${min} to ${max}, not ${JSON.stringify(value.slice(0, 40))}.`)
  return n
}
