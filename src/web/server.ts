import { randomBytes } from 'node:crypto'
import { networkInterfaces } from 'node:os'
import { resolve } from 'node:path'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { compress } from 'hono/compress'
import { setCookie } from 'hono/cookie'
import { loadSettings } from '../config/settings.js'
import { costOf, modelInfo } from '../llm/catalog.js'
import { modelOverridesOf } from '../llm/model-settings.js'
import { SessionError } from '../store/errors.js'
import { closeStore, openStoreAt, type StoreSource } from '../runtime/open-store.js'
import type { SessionStore } from '../store/store.js'
import { assetEncoding, loadAssets, UI_DIR } from './assets.js'
import { WebError } from './directories.js'
import type { Pricing } from './figures.js'
import { cookieName, guard, sameSecret, securityHeaders } from './guard.js'
import { Inspector } from './inspector.js'
import { readRoutes } from './routes-read.js'
import { writeRoutes } from './routes-write.js'
import { attachmentRoutes } from './routes-attachments.js'
import { changesRoutes } from './routes-changes.js'
import { mcpRoutes } from './routes-mcp.js'
import { SessionHost, type AgentDefaults } from './session-host.js'
import { SessionReader } from './session-reader.js'
import { streamRoute } from './stream-route.js'
import { WebContext } from './web-context.js'

export interface WebServerOptions {
  /** The workspace: new sessions start inside it, and only its sessions are shown unless `all`. */
  root: string
  all?: boolean
  /** `$REIN_HOME`. */
  home: string
  host?: string
  /** 0 picks a free port. */
  port?: number
  /** Default: 32 random bytes, hex. */
  token?: string
  /**
   * The session store as `storeChoice` picked it (`jsonl` or a postgres:// URL, and where that came from); default
   * the JSONL store under `home`. Listing and reading use it, and agents the server opens write to it.
   */
  store?: { url: string; source?: StoreSource }
  /** Flags for every agent the server opens (model, effort, permission mode, allow rules, trust). */
  agent?: AgentDefaults
  /** The built page; default dist/web-ui. */
  uiDir?: string
}

export interface WebServer {
  /** `http://host:port`, the server's origin. */
  origin: string
  /** The address to open: the origin with `#token=…`. */
  address: string
  token: string
  close(): Promise<void>
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host)
}

/** The `host:port` values a browser may send for a server bound to `host` on `port`. */
export function allowedHosts(host: string, port: number): string[] {
  const bracket = (h: string): string => (h.includes(':') ? `[${h}]` : h)
  const names = new Set<string>([bracket(host)])
  if (isLoopback(host)) ['127.0.0.1', 'localhost', '[::1]'].forEach((n) => names.add(n))
  if (host === '0.0.0.0' || host === '::') {
    names.add('localhost')
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.add(bracket(a.address))
  }
  return [...names].map((n) => `${n}:${port}`.toLowerCase())
}

/** Starts `rein web`'s server: the page, its JSON API and the live streams, behind the rules of guard.ts. */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const root = resolve(options.root)
  const host = options.host ?? '127.0.0.1'
  const token = options.token ?? randomBytes(32).toString('hex')
  const storeUrl = options.store?.url ?? 'jsonl'
  const store = await openStoreAt(storeUrl, options.home, options.store?.source)
  try {
    await reachable(store)
  } catch (error) {
    await closeStore(store)
    throw error
  }
  let overrides = {}
  try {
    overrides = modelOverridesOf(loadSettings(root, options.home, { workspaceTrusted: false }).models)
  } catch {
    // Broken settings are reported when a session opens (as the terminal does); prices fall back to the catalog's.
  }
  const price: Pricing = (model, usage, time) => costOf(usage, modelInfo(model, overrides), time)
  const sessions = new SessionHost({ ...options.agent, home: options.home, store: storeUrl }, options.home)
  const ctx = new WebContext(
    root,
    options.all === true,
    options.home,
    store,
    new SessionReader(store, (id) => sessions.get(id)),
    sessions,
    new Inspector(price),
    price,
  )

  // Whatever a held session commits may change its row (state, turns, title): the list streams re-check.
  sessions.onOpen((live) =>
    live.watch((message) => {
      if (message.kind === 'state' || (message.kind === 'live' && message.live.type === 'event')) ctx.changes.nudge()
    }),
  )
  let port = options.port ?? 3080
  const app = new Hono()
  app.use('*', securityHeaders())
  // JSON answers are compressed as they stream out (the event stream is not: its messages must arrive one by one).
  app.use('/api/*', compress({ contentTypeFilter: /^application\/json/ }))
  app.use(
    '*',
    guard({
      token,
      cookie: () => cookieName(port),
      hosts: () => allowedHosts(host, port),
      origins: () => allowedHosts(host, port).map((h) => `http://${h}`),
    }),
  )
  app.post('/api/auth', (c) => {
    const given = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1]
    if (!sameSecret(given, token)) return c.json({ error: 'Refused: that is not this server’s token; open the address rein web printed.' }, 401)
    setCookie(c, cookieName(port), token, { httpOnly: true, sameSite: 'Strict', path: '/' })
    return c.json({ ok: true })
  })
  readRoutes(app, ctx)
  writeRoutes(app, ctx)
  streamRoute(app, ctx)
  attachmentRoutes(app, ctx)
  changesRoutes(app, ctx)
  mcpRoutes(app, ctx)
  app.all('/api/*', (c) => c.json({ error: `There is no ${c.req.method} ${c.req.path}.` }, 404))

  const assets = loadAssets(options.uiDir ?? UI_DIR)
  app.get('*', (c) => {
    const asset = assets.get(c.req.path === '/' ? '/index.html' : c.req.path)
    if (!asset) {
      if (!assets.size) return c.text('The page is not built: run npm run build in the Rein checkout.', 503)
      return c.text('Not found.', 404)
    }
    c.header('Content-Type', asset.type)
    c.header('Vary', 'Accept-Encoding')
    if (c.req.path.startsWith('/assets/')) c.header('Cache-Control', 'public, max-age=31536000, immutable')
    const encoding = assetEncoding(asset, c.req.header('accept-encoding'))
    if (encoding) c.header('Content-Encoding', encoding)
    return c.body(new Uint8Array(encoding ? (asset[encoding] as Buffer) : asset.body))
  })

  app.onError((error, c) => {
    if (error instanceof WebError) return c.json({ error: error.message }, error.status)
    if (error instanceof SessionError) {
      // Every other store error is about the stored log (damaged, another version): a conflict with what is on disk.
      const status = error.code === 'not-found' ? 404 : 409
      return c.json({ error: sentence(error.message) }, status)
    }
    return c.json({ error: sentence(error instanceof Error ? error.message : String(error)) }, 500)
  })

  const listening = new Promise<ReturnType<typeof serve>>((resolveServer, reject) => {
    const s = serve({ fetch: app.fetch, port, hostname: host }, (info) => {
      port = info.port
      resolveServer(s)
    })
    s.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `Port ${port} on ${host} is in use; pass --port <n> (0 picks a free one).`
            : `Could not listen on ${host}:${port}: ${error.message}.`,
        ),
      ),
    )
  })
  const server = await listening.catch(async (error: unknown) => {
    await closeStore(store)
    throw error
  })
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  return {
    origin,
    address: `${origin}/#token=${token}`,
    token,
    close: async () => {
      await sessions.closeAll('exit')
      await new Promise<void>((done) => {
        server.close(() => done())
        // Open event streams never end by themselves; `serve` types its server as HTTP/1 or HTTP/2, and only the
        // HTTP/1 server (the one made here) has closeAllConnections.
        ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
      })
    },
  }
}

/**
 * Fails now, in one sentence, when the store cannot be used (a database that is down or refuses the login), rather
 * than on the first page load. A store with a schema to bring up to date (PostgreSQL) does so here.
 */
async function reachable(store: SessionStore): Promise<void> {
  const migrating = store as SessionStore & { migrated?: () => Promise<void> }
  if (typeof migrating.migrated === 'function') await migrating.migrated()
}

/** A message as one sentence: capitalized and ending in a full stop. */
function sentence(message: string): string {
  const text = message.trim()
  const capital = text.charAt(0).toUpperCase() + text.slice(1)
  return /[.!?]$/.test(capital) ? capital : `${capital}.`
}
