import type { Hono } from 'hono'
import { streamSSE, type SSEStreamingApi } from 'hono/streaming'
import type { StreamMessage } from './live-session.js'
import { boundedInt } from './routes-read.js'
import type { WebContext } from './web-context.js'

/** How often a page watching a session this server does not hold re-checks its log when the store cannot tell (ms). */
const POLL_MS = 1_000
/** How often it re-checks anyway while the store tells of changes: a safety net, not the way changes arrive (ms). */
const RECHECK_MS = 15_000
/** A comment line this often keeps proxies and the browser from closing an idle stream (ms). */
const KEEPALIVE_MS = 15_000

/**
 * `GET /api/sessions/:id/stream?from=<seq>`: Server-Sent Events, one JSON `StreamMessage` each. It first sends every
 * committed event from `from` on, then follows the session: live (every committed event and streaming delta, the
 * controls' state, permission requests) while this server holds it, else by re-reading its log when the store says
 * something changed (`ctx.changes`: the store's watch, see listing-changes.ts; a session run by the terminal UI
 * elsewhere), or every `POLL_MS` when the store cannot tell. Every committed event is sent once, in seq order.
 */
export function streamRoute(app: Hono, ctx: WebContext): void {
  app.get('/api/sessions/:id/stream', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const from = boundedInt(c.req.query('from'), 0, 0, Number.MAX_SAFE_INTEGER)
    c.header('Cache-Control', 'no-store')
    return streamSSE(c, async (stream) => {
      let next = from
      const first = await ctx.reader.read(id)
      let history = first.events
      const shower = ctx.shower(id, first.header.cwd, () => ctx.host.get(id)?.opened.agent.session.events ?? history)
      const send = async (message: StreamMessage): Promise<void> => {
        if (message.kind === 'live' && message.live.type === 'event') {
          if (message.live.event.seq < next) return
          next = message.live.event.seq + 1
          message = { kind: 'live', live: { type: 'event', event: shower.show(message.live.event) } }
        }
        await stream.writeSSE({ data: JSON.stringify(message) })
      }
      const aborted = new Promise<void>((resolve) => stream.onAbort(resolve))
      let lastVersion = ''
      // Set before the first read, so a change made during it wakes the next wait at once.
      let changed = false
      let wake: (() => void) | undefined
      const stopHearing = ctx.changes.listen(() => {
        changed = true
        wake?.()
      })
      try {
        while (!stream.aborted) {
          const live = ctx.host.get(id)
          if (live) {
            await followLive(stream, live, send, () => next)
            return
          }
          changed = false
          const log = await ctx.reader.read(id)
          history = log.events
          if (log.version !== lastVersion) {
            lastVersion = log.version
            for (let seq = next; seq < log.events.length; seq++) await send({ kind: 'live', live: { type: 'event', event: log.events[seq] } })
            await send({ kind: 'logged-state', state: { hosted: false, ...(await ctx.loggedState(id, log.events)) } })
          }
          if (changed) continue
          await pause(aborted, ctx.changes.noticing === 'timer' ? POLL_MS : RECHECK_MS, (resolve) => (wake = resolve))
          wake = undefined
        }
      } finally {
        stopHearing()
      }
    })
  })
}

async function followLive(
  stream: SSEStreamingApi,
  live: import('./live-session.js').LiveSession,
  send: (message: StreamMessage) => Promise<void>,
  next: () => number,
): Promise<void> {
  const queue: StreamMessage[] = []
  let wake: (() => void) | undefined
  // The backlog is queued and the watcher attached in one synchronous block, so no event falls between them.
  const events = live.opened.agent.session.events
  for (let seq = next(); seq < events.length; seq++) queue.push({ kind: 'live', live: { type: 'event', event: events[seq] } })
  queue.push({ kind: 'state', state: live.state() })
  const unwatch = live.watch((message) => {
    queue.push(message)
    wake?.()
  })
  stream.onAbort(() => {
    unwatch()
    wake?.()
  })
  try {
    while (!stream.aborted) {
      while (queue.length && !stream.aborted) await send(queue.shift() as StreamMessage)
      if (stream.aborted) break
      const timedOut = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), KEEPALIVE_MS)
        wake = () => {
          clearTimeout(timer)
          resolve(false)
        }
      })
      wake = undefined
      if (timedOut && !queue.length) await stream.write(': keep-alive\n\n')
    }
  } finally {
    unwatch()
  }
}

/** Waits `ms`, or until the page leaves, or until the function handed to `early` is called. */
async function pause(aborted: Promise<void>, ms: number, early: (resolve: () => void) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([aborted, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), new Promise<void>((resolve) => early(resolve))])
  clearTimeout(timer)
}
