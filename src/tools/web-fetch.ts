import http, { type IncomingMessage } from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import zlib from 'node:zlib'
import type TurndownService from 'turndown'
import { z } from 'zod'
import { resolvePublic, type ResolvedHost } from './network-guard.js'
import { capForModel } from './spill.js'
import { errorOutput, type Tool, type ToolOutput, type ToolState } from './tool.js'
import { metaNumber, metaString, stringArg } from './display-args.js'

/** Bytes of a response body read at most (after decompression); the rest is dropped with a note. */
export const FETCH_BYTE_CAP = 5 * 1024 * 1024
export const FETCH_TIMEOUT_MS = 30_000
const MAX_REDIRECTS = 5
/** `ToolState.extra` key: true lets web_fetch reach private and loopback addresses (settings `webFetch.allowPrivate`). */
export const ALLOW_PRIVATE_KEY = 'web_fetch.allowPrivate'

const schema = z.object({
  url: z.string(),
  prompt: z.string().optional().describe('What to look for'),
})

const description = 'Fetch a public http(s) page as Markdown.'

type Args = z.infer<typeof schema>

export const webFetchTool: Tool<Args> = {
  name: 'web_fetch',
  description,
  schema,
  readOnly: true,
  kind: 'fetch',
  category: 'fetch',
  peerNames: { claudeCode: 'WebFetch' },
  target: { kind: 'url', argument: 'url' },
  display: {
    verb: 'Fetch',
    subject: (args) => stringArg(args, 'url'),
    summary: (result) => {
      const status = metaNumber(result, 'status')
      return status === undefined ? undefined : `HTTP ${status}${metaString(result, 'contentType') ? ` ${metaString(result, 'contentType')}` : ''}`
    },
  },
  async run(args, ctx) {
    const allowPrivate = ctx.state.extra.get(ALLOW_PRIVATE_KEY) === true
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)])
    let url: URL
    try {
      url = new URL(args.url)
    } catch {
      return fail(`Error: ${args.url} is not a valid URL; give a full http:// or https:// address.`)
    }
    for (let hop = 0; ; hop++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        return fail(`Error: web_fetch only fetches http and https URLs, not ${url.protocol}.`)
      }
      const resolved = await resolvePublic(url.hostname, allowPrivate)
      if (!resolved.ok) return fail(`Error: refused to fetch ${url.href}: ${resolved.reason}.`)
      let response: IncomingMessage
      try {
        response = await request(url, resolved.host, signal)
      } catch (error) {
        if (signal.aborted) return fail(`Error: fetching ${url.href} timed out or was cancelled.`)
        return fail(`Error: could not fetch ${url.href}: ${(error as Error).message}.`)
      }
      const status = response.statusCode ?? 0
      const location = response.headers.location
      if (status >= 300 && status < 400 && location) {
        response.resume()
        if (hop >= MAX_REDIRECTS) return fail(`Error: ${args.url} redirected more than ${MAX_REDIRECTS} times.`)
        url = new URL(location, url)
        continue
      }
      return render(ctx.state, url, response, signal, args.prompt)
    }
  },
}

const fail = errorOutput

/** One GET to the address already checked: the custom lookup pins the connection to it, whatever DNS says now. */
function request(url: URL, host: ResolvedHost, signal: AbortSignal): Promise<IncomingMessage> {
  const lookup = ((_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: host.address, family: host.family }])
    else callback(null, host.address, host.family)
  }) as LookupFunction
  const client = url.protocol === 'https:' ? https : http
  return new Promise((resolve, reject) => {
    const req = client.get(
      url,
      {
        lookup,
        signal,
        headers: {
          'user-agent': 'Rein (coding agent; web_fetch)',
          accept: 'text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
      },
      resolve,
    )
    req.on('error', reject)
  })
}

async function render(
  state: ToolState,
  url: URL,
  response: IncomingMessage,
  signal: AbortSignal,
  prompt: string | undefined,
): Promise<ToolOutput> {
  const status = response.statusCode ?? 0
  const type = String(response.headers['content-type'] ?? '').toLowerCase()
  const textual = type === '' || /^text\/|json|xml|javascript|yaml/.test(type)
  if (!textual) {
    response.destroy()
    return fail(`Error: ${url.href} returned ${type}, which is not text; web_fetch reads only text and HTML.`)
  }
  let body: { bytes: Buffer; cut: boolean }
  try {
    body = await readBody(response, signal)
  } catch (error) {
    if (signal.aborted) return fail(`Error: fetching ${url.href} timed out or was cancelled.`)
    return fail(`Error: could not read the response from ${url.href}: ${(error as Error).message}.`)
  }
  const charset = /charset=([^;]+)/.exec(type)?.[1]?.trim() ?? 'utf-8'
  let text: string
  try {
    text = new TextDecoder(charset).decode(body.bytes)
  } catch {
    text = body.bytes.toString('utf8') // Unknown charset label: UTF-8 is the web's default.
  }
  if (type.includes('html') || (type === '' && /^\s*<(!doctype html|html)/i.test(text))) text = await htmlToMarkdown(text)
  const header = [`URL: ${url.href}`, `Status: ${status}`]
  if (prompt) header.push(`Looking for: ${prompt}`)
  if (body.cut) header.push(`[body cut at ${FETCH_BYTE_CAP} bytes]`)
  const full = `${header.join('\n')}\n\n${text.trim()}`
  return {
    content: [{ type: 'text', text: capForModel(state, 'web_fetch', full) }],
    isError: status >= 400,
    meta: { url: url.href, status, contentType: type },
  }
}

async function readBody(response: IncomingMessage, signal: AbortSignal): Promise<{ bytes: Buffer; cut: boolean }> {
  const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase()
  const stream =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? response.pipe(zlib.createGunzip())
      : encoding === 'deflate'
        ? response.pipe(zlib.createInflate())
        : encoding === 'br'
          ? response.pipe(zlib.createBrotliDecompress())
          : response
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of stream) {
    if (signal.aborted) throw new Error('aborted')
    const buffer = chunk as Buffer
    chunks.push(buffer.subarray(0, FETCH_BYTE_CAP - size))
    size += buffer.length
    if (size >= FETCH_BYTE_CAP) {
      response.destroy()
      return { bytes: Buffer.concat(chunks), cut: true }
    }
  }
  return { bytes: Buffer.concat(chunks), cut: false }
}

let turndown: TurndownService | undefined

/**
 * HTML to Markdown with turndown; scripts, styles and other non-content elements are dropped. turndown is loaded on
 * first use: it costs start-up time that most sessions never need.
 */
export async function htmlToMarkdown(html: string): Promise<string> {
  if (!turndown) {
    const { default: Turndown } = await import('turndown')
    turndown = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced' })
    turndown.remove(['script', 'style', 'noscript', 'iframe', 'svg', 'head'] as TurndownService.Filter)
  }
  return turndown.turndown(html)
}
