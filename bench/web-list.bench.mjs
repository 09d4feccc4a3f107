// The sessions page of `rein web` over 5,000 sessions of one workspace. Server side: the first listing of a server
// started on a home with no summary index (cold: every log scanned, the newest 100 rows' figures computed), the time
// until every row's figures are known (they are computed after that answer), the next listing (warm), a
// revalidation with the listing's ETag (304, nothing re-sent), and the bytes of the listing plain and gzipped. In
// Debian's Chromium: from navigation until the first row is on screen, and how many rows are in the DOM. Each time
// is the median of 3 runs; the load average it ran under is printed beside it.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { chromium } from 'playwright-core'
import { Session } from '../dist/session/session.js'
import { cwdKey } from '../dist/store/home.js'
import { MemoryStore } from '../dist/store/memory-store.js'
import { startWebServer } from '../dist/web/server.js'
import { appendRealisticTurn, random } from './session-fixture.mjs'

const SESSIONS = Number(process.env.SESSIONS ?? 5_000)
const RUNS = 3
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const root = mkdtempSync(join(tmpdir(), 'rein-bench-web-list-'))
const cwd = join(root, 'project')
mkdirSync(cwd, { recursive: true })

/** A fresh home holding SESSIONS copies of one two-turn session (no summary index yet). */
function makeHome(name, headerLine, body) {
  const home = join(root, name)
  const dir = join(home, 'sessions', cwdKey(cwd))
  mkdirSync(dir, { recursive: true })
  for (let i = 0; i < SESSIONS; i++) {
    const id = `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`
    writeFileSync(join(dir, `${id}.jsonl`), `${headerLine.replace('"template"', `"${id}"`)}\n${body}`)
  }
  return home
}

const get = async (server, path, headers = {}) => {
  const start = performance.now()
  const res = await fetch(`${server.origin}${path}`, { headers: { authorization: `Bearer ${server.token}`, ...headers } })
  const text = await res.text()
  return { ms: performance.now() - start, status: res.status, etag: res.headers.get('etag'), text }
}

let browser
try {
  const memory = new MemoryStore()
  const template = await Session.create(memory, { cwd, id: 'template' })
  const rand = random(5)
  for (let turn = 1; turn <= 2; turn++) appendRealisticTurn(template, turn, rand, 1)
  await template.flush()
  const [headerLine, ...eventLines] = memory.lines.get('template')
  const body = `${eventLines.join('\n')}\n`
  console.log(`${SESSIONS.toLocaleString('en-US')} sessions of ${(Buffer.byteLength(body) / 1024).toFixed(0)} KB each`)

  const cold = []
  const complete = []
  const warm = []
  const revalidate = []
  let listing
  for (let run = 0; run < RUNS; run++) {
    const home = makeHome(`home-${run}`, headerLine, body)
    const server = await startWebServer({ root: cwd, home, port: 0 })
    try {
      const first = await get(server, '/api/sessions')
      const rows = JSON.parse(first.text).sessions.length
      if (rows !== SESSIONS) throw new Error(`listed ${rows} sessions, expected ${SESSIONS}`)
      cold.push(first.ms)
      const began = performance.now() - first.ms
      // The rows beyond the first 100 are computed after the answer: wait until none is pending.
      while (JSON.parse((await get(server, '/api/sessions')).text).sessions.some((r) => r.pending)) {
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      complete.push(performance.now() - began)
      const second = await get(server, '/api/sessions')
      warm.push(second.ms)
      const again = await get(server, '/api/sessions', { 'if-none-match': second.etag ?? '' })
      if (again.status !== 304) throw new Error(`revalidation answered ${again.status}, expected 304`)
      revalidate.push(again.ms)
      listing = second.text
    } finally {
      await server.close()
    }
    rmSync(home, { recursive: true, force: true })
  }
  const load = loadavg()[0].toFixed(1)
  console.log(`listing, cold (no index, new server): ${median(cold).toFixed(0)} ms (runs ${cold.map((v) => v.toFixed(0)).join(', ')}), load ${load}`)
  console.log(`every row's figures known after:       ${median(complete).toFixed(0)} ms (runs ${complete.map((v) => v.toFixed(0)).join(', ')})`)
  console.log(`listing, warm:                         ${median(warm).toFixed(0)} ms`)
  console.log(`listing, unchanged (If-None-Match):    ${median(revalidate).toFixed(0)} ms, 304 with no body`)
  console.log(`listing bytes: ${(Buffer.byteLength(listing) / 1024).toFixed(0)} KB, gzipped ${(gzipSync(listing).length / 1024).toFixed(0)} KB`)

  const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p))
  if (!executablePath) {
    console.log('no Chromium found (apt-get install -y chromium or CHROMIUM_PATH): the browser part is skipped')
  } else {
    const home = makeHome('home-page', headerLine, body)
    const server = await startWebServer({ root: cwd, home, port: 0 })
    try {
      browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
      const context = await browser.newContext({ viewport: { width: 1200, height: 800 } })
      const shown = []
      let rendered = 0
      let elements = 0
      for (let run = 0; run <= RUNS; run++) {
        const page = await context.newPage()
        const start = performance.now()
        await page.goto(run === 0 ? server.address : `${server.origin}/#/`)
        await page.locator('table.sessions tbody tr[data-session]').first().waitFor()
        // The first open builds the server's figures (the cold listing above); the others are the page's own cost.
        if (run > 0) shown.push(performance.now() - start)
        rendered = await page.locator('table.sessions tbody tr[data-session]').count()
        elements = await page.evaluate(() => document.getElementsByTagName('*').length)
        await page.close()
      }
      console.log(`page, navigation to first row (warm server): ${median(shown).toFixed(0)} ms; ${rendered} rows and ${elements} elements in the DOM`)
    } finally {
      await server.close()
    }
  }
} finally {
  await browser?.close()
  rmSync(root, { recursive: true, force: true })
}
