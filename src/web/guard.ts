import { timingSafeEqual } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { getCookie } from 'hono/cookie'

/**
 * The rules every request to `rein web` passes, in this order:
 * - `Host` names the bound address and port (a page on another site that rebinds its DNS name to 127.0.0.1 sends its
 *   own name and is refused, DNS rebinding);
 * - a state-changing request (anything but GET and HEAD) carries an `Origin` equal to the server's own origin;
 * - every `/api/` request proves the token, by the HttpOnly cookie the page got in exchange for it, or by
 *   `Authorization: Bearer <token>` (scripts). Only the page shell and its assets are served without it: they hold
 *   no session data, and the page cannot send the token before it has loaded (it arrives in the URL fragment).
 * Every response carries a strict Content-Security-Policy and no CORS header, so no other origin can read one.
 */
/**
 * The cookie's name. Browsers scope cookies by host, not port, so two `rein web` servers on one machine would share
 * (and overwrite) one cookie: each server's name carries its port.
 */
export function cookieName(port: number): string {
  return `rein_web_${port}`
}

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

export interface GuardOptions {
  token: string
  /** The name of this server's cookie (it depends on the port, known once listening). */
  cookie: () => string
  /** `host:port` values the `Host` header may hold. */
  hosts: () => readonly string[]
  /** Origins a state-changing request may come from. */
  origins: () => readonly string[]
}

export function sameSecret(given: string | undefined, token: string): boolean {
  if (given === undefined) return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

function bearer(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer\s+(\S+)$/i.exec(header)
  return match ? match[1] : undefined
}

export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next()
    c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
    c.header('X-Content-Type-Options', 'nosniff')
    c.header('Referrer-Policy', 'no-referrer')
    c.header('X-Frame-Options', 'DENY')
    c.header('Cross-Origin-Opener-Policy', 'same-origin')
    c.header('Cross-Origin-Resource-Policy', 'same-origin')
    if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store')
  }
}

export function guard(options: GuardOptions): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host')?.toLowerCase()
    if (!host || !options.hosts().includes(host)) {
      return c.json({ error: `Refused: the Host header ${JSON.stringify(host ?? '')} does not name this server; open the address rein web printed.` }, 421)
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const origin = c.req.header('origin')
      if (!origin || !options.origins().includes(origin)) {
        return c.json({ error: `Refused: a change must come from this server's own page, not from origin ${JSON.stringify(origin ?? 'none')}.` }, 403)
      }
    }
    if (c.req.path.startsWith('/api/') && c.req.path !== '/api/auth') {
      const given = getCookie(c, options.cookie()) ?? bearer(c.req.header('authorization'))
      if (!sameSecret(given, options.token)) {
        return c.json({ error: 'Refused: this request lacks the rein web token; open the full address rein web printed (with #token=…).' }, 401)
      }
    }
    await next()
  }
}
