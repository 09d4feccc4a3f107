import { lookup as dnsLookup } from 'node:dns/promises'
import { unlinkSync } from 'node:fs'
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { connect, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { isPublicAddress } from './addresses.js'
import { canonicalHost, describeRefusal, hostAllowed, type Refusal } from './hosts.js'

export interface ProxyOptions {
  /** Normalised rules (resolveSandbox): exact names or `*.` wildcards. */
  allowedDomains: readonly string[]
  /** How a name becomes addresses; the system resolver by default. Tests answer for their own names. */
  lookup?: (host: string) => Promise<string[]>
  /**
   * Test-only: names whose loopback answers are accepted, so a test can serve an allowed name from 127.0.0.1 on the
   * host. Never set outside tests; every other loopback, private or link-local answer is refused.
   */
  testOnlyLoopbackHosts?: readonly string[]
  /** Told about every refusal as it happens (the user's notice). */
  onRefusal?: (refusal: Refusal) => void
}

/** One listening socket of the proxy, opened for one command: the refusals it recorded belong to that command. */
export interface ProxyGate {
  socketPath: string
  refusals: Refusal[]
  close(): Promise<void>
}

type Destination = { address: string; port: number; host: string } | Refusal

/**
 * Rein's filtering proxy, the only way out of a sandbox's empty network namespace. It speaks HTTP CONNECT (HTTPS and
 * any TCP) and plain HTTP in absolute form, on Unix sockets bound into the sandbox. What holds for every request,
 * including each request on a kept-alive connection: the host is a plain name on the allow list (hosts.ts); the
 * request line and the `Host` header name the same host; the proxy resolves the name itself, refuses it if any
 * answer is not a public address, and connects to the address it checked (no second lookup to rebind).
 */
export class SandboxProxy {
  private readonly lookup: (host: string) => Promise<string[]>
  private readonly loopbackHosts: Set<string>
  private readonly gates = new Set<ProxyGate>()

  constructor(private readonly options: ProxyOptions) {
    this.lookup = options.lookup ?? (async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address))
    this.loopbackHosts = new Set(options.testOnlyLoopbackHosts ?? [])
  }

  async openGate(socketPath: string): Promise<ProxyGate> {
    const refusals: Refusal[] = []
    const server = createServer()
    server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => void this.tunnel(req, client, head, refusals))
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void this.forward(req, res, refusals))
    server.on('clientError', (_error, socket) => socket.destroy())
    // Tunnels leave the HTTP server's bookkeeping once upgraded; closing the gate must still end them.
    const sockets = new Set<Socket>()
    server.on('connection', (socket: Socket) => {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
    })
    try {
      unlinkSync(socketPath)
    } catch {
      // No stale socket at that path: nothing to remove.
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(socketPath, () => resolve())
    })
    const gate: ProxyGate = { socketPath, refusals, close: () => closeServer(server, sockets, () => this.gates.delete(gate)) }
    this.gates.add(gate)
    return gate
  }

  async close(): Promise<void> {
    await Promise.all([...this.gates].map((gate) => gate.close()))
  }

  /** Keeps a refusal for the command's note and tells the user; returns it for the caller's answer. */
  private record(refusal: Refusal, refusals: Refusal[]): Refusal {
    refusals.push(refusal)
    this.options.onRefusal?.(refusal)
    return refusal
  }

  private async destination(requested: string, port: number, refusals: Refusal[]): Promise<Destination> {
    const refuse = (refusal: Refusal): Refusal => this.record(refusal, refusals)
    const canonical = canonicalHost(requested)
    if ('reason' in canonical) return refuse(canonical)
    const { host } = canonical
    if (!hostAllowed(host, this.options.allowedDomains)) return refuse({ host, reason: 'not-allowed' })
    let addresses: string[]
    try {
      addresses = await this.lookup(host)
    } catch {
      addresses = []
    }
    if (addresses.length === 0) return refuse({ host, reason: 'unresolvable' })
    const trusted = (address: string) => isPublicAddress(address) || (this.loopbackHosts.has(host) && /^(127\.|::1$)/.test(address))
    if (!addresses.every(trusted)) return refuse({ host, reason: 'private-address' })
    return { address: addresses[0]!, port, host }
  }

  private async tunnel(req: IncomingMessage, client: Duplex, head: Buffer, refusals: Refusal[]): Promise<void> {
    client.on('error', () => client.destroy())
    const target = splitAuthority(req.url ?? '')
    const hostHeader = req.headers.host
    let destination: Destination
    if (!target) destination = this.record({ host: req.url ?? '', reason: 'bad-authority' }, refusals)
    else if (hostHeader !== undefined && !sameAuthority(hostHeader, req.url ?? '', target.port)) {
      destination = this.record({ host: hostHeader, reason: 'host-mismatch' }, refusals)
    } else destination = await this.destination(target.host, target.port, refusals)
    if ('reason' in destination) {
      client.end(refusalResponse(destination))
      return
    }
    const upstream = connect({ host: destination.address, port: destination.port })
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    upstream.on('error', () => {
      if (upstream.connecting) client.end(plainResponse(502, `The sandbox proxy could not reach ${destination.host}.`))
      else client.destroy()
    })
    client.on('close', () => upstream.destroy())
  }

  private async forward(req: IncomingMessage, res: ServerResponse, refusals: Refusal[]): Promise<void> {
    let url: URL
    try {
      url = new URL(req.url ?? '')
    } catch {
      res.writeHead(400, { connection: 'close' }).end('The sandbox proxy takes absolute-form requests (http://host/path) or CONNECT.\n')
      return
    }
    const port = Number(url.port || 80)
    let destination: Destination
    if (url.protocol !== 'http:' || url.username || url.password || /^[a-z]+:\/\/[^/]*@/i.test(req.url ?? '')) {
      destination = this.record({ host: url.host, reason: 'bad-authority' }, refusals)
    } else if (req.headers.host !== undefined && !sameAuthority(req.headers.host, url.host, port)) {
      destination = this.record({ host: req.headers.host, reason: 'host-mismatch' }, refusals)
    } else destination = await this.destination(url.hostname, port, refusals)
    if ('reason' in destination) {
      res.writeHead(403, { connection: 'close', 'content-type': 'text/plain', 'x-rein-sandbox': 'refused' }).end(`${describeRefusal(destination)}\n`)
      return
    }
    const headers = withoutHopByHop(req.headers)
    const upstream = request({
      host: destination.address,
      port: destination.port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      agent: false,
    })
    upstream.on('response', (answer) => {
      // The upstream connection is one-shot; the client's connection to the proxy stays as the client asked.
      res.writeHead(answer.statusCode ?? 502, withoutHopByHop(answer.headers))
      answer.pipe(res)
    })
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { connection: 'close' }).end(`The sandbox proxy could not reach ${destination.host}.\n`)
      else res.destroy()
    })
    req.pipe(upstream)
  }
}

/** Headers that describe one connection, not the message; a proxy must not pass them on (RFC 9110, 7.6.1). */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'upgrade']

function withoutHopByHop(headers: IncomingMessage['headers']): IncomingMessage['headers'] {
  const named = String(headers.connection ?? '').split(',').map((h) => h.trim().toLowerCase())
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.includes(name) && !named.includes(name)))
}

/** `host:port` of a CONNECT request; IPv6 literals come bracketed and are refused later as IP literals. */
function splitAuthority(authority: string): { host: string; port: number } | undefined {
  const match = authority.match(/^(\[[^\]]*\]|[^:]+):(\d{1,5})$/)
  if (!match) return undefined
  const port = Number(match[2])
  return port > 0 && port < 65536 ? { host: match[1]!, port } : undefined
}

/** Whether a `Host` header names the same host and port as the request line (case and one trailing dot aside). */
function sameAuthority(header: string, requested: string, port: number): boolean {
  const norm = (authority: string, defaultPort: number) => {
    const split = splitAuthority(authority)
    const host = (split?.host ?? authority).toLowerCase().replace(/\.$/, '')
    return `${host}:${split?.port ?? defaultPort}`
  }
  return norm(header, port) === norm(requested, port)
}

function refusalResponse(refusal: Refusal): string {
  return plainResponse(403, describeRefusal(refusal))
}

function plainResponse(status: number, sentence: string): string {
  const body = `${sentence}\n`
  const reason = status === 403 ? 'Forbidden' : 'Bad Gateway'
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\nX-Rein-Sandbox: refused\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

function closeServer(server: Server, sockets: Set<Socket>, done: () => void): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      done()
      resolve()
    })
    for (const socket of sockets) socket.destroy()
  })
}
