// Opening a 10,000-event session in `rein web`: from navigation to the session's address until its newest reply is
// on screen, in Debian's Chromium driven by playwright-core. "cold" re-reads the log (its mtime is touched before each
// run, so the server's parsed copy is stale); "warm" is a page opened again with the server's copy current. The
// server-side part (session facts + the newest page of events, as the page asks for them) is timed on its own.
// Target: under 1 s. Each figure is the median of 5 runs.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { Session } from '../dist/session/session.js'
import { JsonlStore } from '../dist/store/jsonl-store.js'
import { startWebServer } from '../dist/web/server.js'
import { appendRealisticTurn, random } from './session-fixture.mjs'

const EVENTS = 10_000
const RUNS = 5
const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p))
if (!executablePath) {
  console.error('web-open: no Chromium found; install it (apt-get install -y chromium) or set CHROMIUM_PATH.')
  process.exit(1)
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const root = mkdtempSync(join(tmpdir(), 'rein-bench-web-'))
const home = join(root, 'home')
const cwd = join(root, 'project')
mkdirSync(cwd, { recursive: true })
let server
let browser
try {
  const session = await Session.create(new JsonlStore(home), { cwd })
  const rand = random(19)
  let turn = 0
  while (session.length < EVENTS) {
    appendRealisticTurn(session, ++turn, rand, 6)
    if (turn % 20 === 0) await session.flush()
  }
  await session.close()
  const file = session.path
  const size = statSync(file).size

  server = await startWebServer({ root: cwd, home, port: 0 })
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } })
  const first = await context.newPage()
  await first.goto(server.address)
  await first.getByRole('button', { name: 'New session' }).waitFor()
  await first.close()

  const open = async () => {
    const page = await context.newPage()
    const start = performance.now()
    await page.goto(`${server.origin}/#/s/${session.id}`)
    await page.locator('.msg.assistant').last().waitFor()
    const ms = performance.now() - start
    const rendered = await page.locator('[data-key]').count()
    await page.close()
    return { ms, rendered }
  }
  const touch = () => {
    const now = new Date(Date.now() + Math.random() * 1000)
    utimesSync(file, now, now)
  }
  const api = async () => {
    const headers = { authorization: `Bearer ${server.token}` }
    const start = performance.now()
    const meta = await (await fetch(`${server.origin}/api/sessions/${session.id}`, { headers })).json()
    await (await fetch(`${server.origin}/api/sessions/${session.id}/events?limit=400&before=${meta.total}`, { headers })).arrayBuffer()
    return performance.now() - start
  }

  const cold = []
  const warm = []
  const apiCold = []
  const apiWarm = []
  let rendered = 0
  for (let i = 0; i < RUNS; i++) {
    touch()
    apiCold.push(await api())
    apiWarm.push(await api())
    touch()
    cold.push((await open()).ms)
    const w = await open()
    warm.push(w.ms)
    rendered = w.rendered
  }
  console.log(`session: ${session.length.toLocaleString('en')} events, ${(size / 1024 / 1024).toFixed(1)} MB; the page loads the newest 400 and renders ${rendered} transcript entries`)
  console.log(`open in the browser, cold: ${Math.round(median(cold))} ms median (${cold.map(Math.round).join(', ')}), target < 1000 ms`)
  console.log(`open in the browser, warm: ${Math.round(median(warm))} ms median (${warm.map(Math.round).join(', ')})`)
  console.log(`server part (facts + newest page), cold: ${Math.round(median(apiCold))} ms; warm: ${Math.round(median(apiWarm))} ms`)
} finally {
  await browser?.close()
  await server?.close()
  rmSync(root, { recursive: true, force: true })
}
