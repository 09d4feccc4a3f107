import http from 'node:http'
import type { AddressInfo } from 'node:net'
import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isPrivateAddress } from '../../src/tools/network-guard.js'
import { webFetchTool } from '../../src/tools/web-fetch.js'
import { makeWorkspace, textOf } from './tool-context.js'

let server: http.Server
let base: string

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/page') {
      res.setHeader('content-type', 'text/html; charset=utf-8')
      res.end('<html><head><title>T</title><script>alert(1)</script></head><body><h1>Hello</h1><p>Some <b>bold</b> text.</p></body></html>')
    } else if (req.url === '/gz') {
      res.setHeader('content-type', 'text/plain')
      res.setHeader('content-encoding', 'gzip')
      res.end(zlib.gzipSync('compressed body'))
    } else if (req.url === '/redirect') {
      res.statusCode = 302
      res.setHeader('location', '/page')
      res.end()
    } else if (req.url === '/binary') {
      res.setHeader('content-type', 'application/octet-stream')
      res.end(Buffer.alloc(10))
    } else if (req.url === '/huge') {
      res.setHeader('content-type', 'text/plain')
      const chunk = 'x'.repeat(1024 * 1024)
      let sent = 0
      const pump = () => {
        while (sent < 8 && res.write(chunk)) sent++
        if (sent >= 8) res.end()
        else res.once('drain', () => (sent++, pump()))
      }
      pump()
    } else {
      res.statusCode = 404
      res.setHeader('content-type', 'text/plain')
      res.end('not here')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

describe('web_fetch', () => {
  it('converts HTML to Markdown, dropping scripts', async () => {
    const ws = makeWorkspace({ allowPrivateNetwork: true })
    try {
      const out = textOf(await ws.run(webFetchTool, { url: `${base}/page`, prompt: 'the heading' }))
      expect(out).toContain('# Hello')
      expect(out).toContain('Some **bold** text.')
      expect(out).toContain('Looking for: the heading')
      expect(out).not.toContain('alert')
    } finally {
      await ws.dispose()
    }
  })

  it('follows redirects and decompresses gzip', async () => {
    const ws = makeWorkspace({ allowPrivateNetwork: true })
    try {
      expect(textOf(await ws.run(webFetchTool, { url: `${base}/redirect` }))).toContain(`URL: ${base}/page`)
      expect(textOf(await ws.run(webFetchTool, { url: `${base}/gz` }))).toContain('compressed body')
    } finally {
      await ws.dispose()
    }
  })

  it('refuses loopback and private addresses unless settings allow them', async () => {
    const ws = makeWorkspace()
    try {
      const out = await ws.run(webFetchTool, { url: `${base}/page` })
      expect(out.isError).toBe(true)
      expect(textOf(out)).toMatch(/refused to fetch .*127\.0\.0\.1, a private or loopback address/)
      expect(textOf(await ws.run(webFetchTool, { url: 'http://localhost:1/' }))).toMatch(/refused/)
    } finally {
      await ws.dispose()
    }
  })

  it('refuses non-HTTP schemes, binary content, and marks HTTP errors', async () => {
    const ws = makeWorkspace({ allowPrivateNetwork: true })
    try {
      expect(textOf(await ws.run(webFetchTool, { url: 'file:///etc/passwd' }))).toMatch(/only fetches http and https/)
      expect(textOf(await ws.run(webFetchTool, { url: `${base}/binary` }))).toMatch(/not text/)
      const missing = await ws.run(webFetchTool, { url: `${base}/nope` })
      expect(missing.isError).toBe(true)
      expect(textOf(missing)).toContain('Status: 404')
    } finally {
      await ws.dispose()
    }
  })

  it('caps the body and spills what the model does not see', async () => {
    const ws = makeWorkspace({ allowPrivateNetwork: true })
    try {
      const out = textOf(await ws.run(webFetchTool, { url: `${base}/huge` }))
      expect(out).toMatch(/body cut at 5242880 bytes/)
      expect(out).toMatch(/the full output is in \S+/)
      expect(out.length).toBeLessThan(31_000)
    } finally {
      await ws.dispose()
    }
  })
})

describe('private address check', () => {
  it('classifies loopback, private, link-local, mapped and public addresses', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '100.64.0.1']) {
      expect(isPrivateAddress(a), a).toBe(true)
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '172.32.0.1']) {
      expect(isPrivateAddress(a), a).toBe(false)
    }
  })
})
