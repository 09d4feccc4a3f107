import type { Hono } from 'hono'
import type { WebContext } from './web-context.js'

/**
 * `GET /api/sessions/:id/mcp`: the MCP servers of a session this server holds, each with its state (`connected`,
 * `failed` with the sentence why, …), transport and model-visible tool names. Read-only. A session the server does
 * not hold has no servers running here: `hosted: false`, and its servers start when the page first changes it.
 */
export function mcpRoutes(app: Hono, ctx: WebContext): void {
  app.get('/api/sessions/:id/mcp', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const live = ctx.host.get(id)
    if (!live) return c.json({ hosted: false, servers: [] })
    return c.json({ hosted: true, servers: live.opened.mcp.status() })
  })
}
