import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { RequestBody } from './body-bytes.js'

/** An HTTP response whose body is read chunk by chunk and can be torn down at once. */
export interface OpenResponse {
  status: number
  headers: Headers
  /** The next piece of body text (UTF-8, never splitting a character), or null at the end. Rejects when the connection fails or is destroyed. */
  read(): Promise<string | null>
  /** Reads the rest of the body as text (for error bodies). */
  text(): Promise<string>
  /** Lets an ended or no-longer-needed body drain so a keep-alive socket can be reused. */
  release(): void
  /** Destroys the socket now: nothing more is read and the server sees the connection close. */
  destroy(): void
}

/**
 * POSTs `body` and resolves when the status line and headers arrive. Built on node:http rather than `fetch`: when
 * a stream is cancelled, Rein must close the connection at once, and Node's `fetch` keeps reading an aborted body to
 * its end before it lets the socket go. Aborting `signal` destroys the request and socket. A body given as byte
 * chunks is written chunk by chunk, never joined: a long session's body is mostly a prefix kept from the last request.
 */
export function postRequest(url: string, headers: Record<string, string>, body: RequestBody, signal: AbortSignal): Promise<OpenResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url)
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    const chunks = typeof body === 'string' ? [Buffer.from(body, 'utf8')] : body
    const length = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0)
    const req = send(target, { method: 'POST', headers: { ...headers, 'content-length': String(length) }, signal })
    req.once('error', reject)
    req.once('response', (res) => {
      req.off('error', reject)
      // From here, failures surface through read(); a late socket error must not go unhandled.
      req.on('error', () => undefined)
      resolve(openResponse(res, () => req.destroy()))
    })
    for (const chunk of chunks) req.write(chunk)
    req.end()
  })
}

function openResponse(res: IncomingMessage, destroy: () => void): OpenResponse {
  // Node's string decoder on the socket is cheaper than decoding Buffers ourselves (measured by bench/sse.bench.mjs).
  res.setEncoding('utf8')
  const iterator = res[Symbol.asyncIterator]() as AsyncIterator<string>
  const headers = new Headers()
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
  }
  const read = async (): Promise<string | null> => {
    const next = await iterator.next()
    return next.done ? null : next.value
  }
  return {
    status: res.statusCode ?? 0,
    headers,
    read,
    async text() {
      let text = ''
      for (let part = await read(); part !== null; part = await read()) text += part
      return text
    },
    release: () => void res.resume(),
    destroy,
  }
}
