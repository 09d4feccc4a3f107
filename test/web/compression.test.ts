import { request } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { assetEncoding } from '../../src/web/assets.js'
import { startWeb, trusted, type WebRun } from './support.js'

let run: WebRun | undefined
afterEach(async () => {
  await run?.stop()
  run = undefined
})

/** The page's whole budget of script, gzipped (issue 34: "at most 150 KB of script gzipped"). */
const SCRIPT_BUDGET_GZIP = 150 * 1024

interface Bytes {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

/** A GET that keeps the body as the bytes sent (compressed or not), with the headers given. */
function bytes(origin: string, path: string, headers: Record<string, string> = {}, until?: (body: Buffer) => boolean): Promise<Bytes> {
  const url = new URL(path, origin)
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, headers }, (res) => {
      const chunks: Buffer[] = []
      const done = (): void => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) })
      res.on('data', (d: Buffer) => {
        chunks.push(d)
        if (until?.(Buffer.concat(chunks))) {
          done()
          req.destroy()
        }
      })
      res.on('end', done)
    })
    req.on('error', (error) => (until ? undefined : reject(error)))
    req.end()
  })
}

function scriptsOf(html: string): string[] {
  return [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1])
}

describe('rein web sends compressed responses', () => {
  it('serves the page and its assets in brotli or gzip as the browser accepts, byte-identical once decoded, within the script budget', async () => {
    run = await startWeb()
    const plain = await bytes(run.origin, '/')
    const scripts = scriptsOf(plain.body.toString())
    expect(scripts.length).toBeGreaterThan(0)
    let gzippedScript = 0
    for (const path of scripts) {
      const raw = await bytes(run.origin, path)
      expect(raw.headers['content-encoding']).toBeUndefined()
      const br = await bytes(run.origin, path, { 'accept-encoding': 'gzip, deflate, br' })
      expect(br.headers['content-encoding']).toBe('br')
      expect(br.headers.vary).toMatch(/Accept-Encoding/i)
      expect(brotliDecompressSync(br.body).equals(raw.body)).toBe(true)
      const gz = await bytes(run.origin, path, { 'accept-encoding': 'gzip' })
      expect(gz.headers['content-encoding']).toBe('gzip')
      expect(gunzipSync(gz.body).equals(raw.body)).toBe(true)
      expect(gz.body.length).toBeLessThan(raw.body.length / 2)
      gzippedScript += gz.body.length
    }
    expect(gzippedScript).toBeLessThanOrEqual(SCRIPT_BUDGET_GZIP)
    // The security headers stay on a compressed answer.
    const shell = await bytes(run.origin, '/', { 'accept-encoding': 'br' })
    expect(shell.headers['content-security-policy']).toContain("default-src 'none'")
  })

  it('compresses JSON answers but never the event stream, whose messages must arrive one at a time', async () => {
    run = await startWeb()
    const auth = { authorization: `Bearer ${run.token}` }
    const info = await bytes(run.origin, '/api/info', { ...auth, 'accept-encoding': 'gzip' })
    expect(info.status).toBe(200)
    expect(info.headers['content-encoding']).toBe('gzip')
    expect(JSON.parse(gunzipSync(info.body).toString())).toHaveProperty('models')
    const created = await fetch(`${run.origin}/api/sessions`, { method: 'POST', headers: trusted(run), body: JSON.stringify({ cwd: '.' }) })
    const { id } = (await created.json()) as { id: string }
    const stream = await bytes(run.origin, `/api/sessions/${id}/stream?from=0`, { ...auth, 'accept-encoding': 'gzip, br' }, (b) => b.includes('data:'))
    expect(stream.headers['content-type']).toMatch(/text\/event-stream/)
    expect(stream.headers['content-encoding']).toBeUndefined()
    expect(stream.body.toString()).toContain('data:')
    // Refusals are compressed too and still one sentence.
    const refused = await bytes(run.origin, '/api/sessions', { 'accept-encoding': 'gzip' })
    expect(refused.status).toBe(401)
    expect(JSON.parse(gunzipSync(refused.body).toString()).error).toMatch(/lacks the rein web token/)
  })

  it('picks the encoding by Accept-Encoding, honouring q=0 and the wildcard', () => {
    const asset = { body: Buffer.from('x'), type: 'text/javascript', br: Buffer.from('b'), gzip: Buffer.from('g') }
    expect(assetEncoding(asset, undefined)).toBeUndefined()
    expect(assetEncoding(asset, 'identity')).toBeUndefined()
    expect(assetEncoding(asset, 'gzip, br')).toBe('br')
    expect(assetEncoding(asset, 'br;q=0, gzip')).toBe('gzip')
    expect(assetEncoding(asset, '*')).toBe('br')
    expect(assetEncoding(asset, '*, br;q=0, gzip;q=0')).toBeUndefined()
    expect(assetEncoding({ body: asset.body, type: 'image/png' }, 'br, gzip')).toBeUndefined()
  })
})
