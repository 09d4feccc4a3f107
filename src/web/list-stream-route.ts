import type { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { SessionRow } from './api-types.js'
import { RECHECK_MS } from './listing-changes.js'
import { listingEntity } from './routes-read.js'
import type { WebContext } from './web-context.js'

/** A comment line this often keeps an idle stream open (ms). */
const KEEPALIVE_MS = 15_000

/**
 * `GET /api/stream`: Server-Sent Events naming the listing's ETag, first at once and again whenever it changes, so
 * the page re-asks `GET /api/sessions` (with `If-None-Match`) only then, instead of polling.
 *
 * What holds:
 * - The listing is re-checked when `ctx.changes` says it may have changed (this server's own sessions and routes,
 *   and the store's watch for other processes: see listing-changes.ts), never on a timer while the store can watch.
 * - A change told while a check runs is checked again after it, so no change is lost to a check that read too early.
 * - While a row shows a session running in another process, the listing is re-checked every `RECHECK_MS`: that
 *   process may die without a word to the store (its lease then goes stale with no change to see).
 */
export function listStreamRoute(app: Hono, ctx: WebContext): void {
  app.get('/api/stream', (c) => {
    c.header('Cache-Control', 'no-store')
    return streamSSE(c, async (stream) => {
      // Registered first: a page that leaves during the first check must still end this stream.
      const aborted = new Promise<void>((resolve) => stream.onAbort(resolve))
      let sent = ''
      let checking: Promise<void> | undefined
      let again = false
      let runningElsewhere: NodeJS.Timeout | undefined
      const once = async (): Promise<void> => {
        const { body, etag } = await listingEntity(ctx)
        clearTimeout(runningElsewhere)
        runningElsewhere = heldElsewhere(body) ? setTimeout(() => void check().catch(() => stream.abort()), RECHECK_MS).unref() : undefined
        if (etag === sent || stream.aborted) return
        sent = etag
        await stream.writeSSE({ data: JSON.stringify({ kind: 'listing', etag }) })
      }
      const check = (): Promise<void> => {
        if (checking) {
          again = true
          return checking
        }
        checking = (async () => {
          try {
            do {
              again = false
              await once()
            } while (again && !stream.aborted)
          } finally {
            checking = undefined
          }
        })()
        return checking
      }
      const stop = ctx.changes.listen(() => void check().catch(() => stream.abort()))
      const keepalive = setInterval(() => void stream.write(': keepalive\n\n').catch(() => stream.abort()), KEEPALIVE_MS).unref()
      try {
        await check()
        await aborted
      } finally {
        stop()
        clearTimeout(runningElsewhere)
        clearInterval(keepalive)
      }
    })
  })
}

/** True when the listing shows a session running in another process. */
function heldElsewhere(body: string): boolean {
  const rows = (JSON.parse(body) as { sessions: SessionRow[] }).sessions
  return rows.some((row) => row.state === 'running' && !row.hosted)
}
