// The inspector of a 600-step session in `rein web`: from navigation to `#/s/<id>/inspect` until the steps table
// holds every request (the page is interactive: any step can be chosen), then choosing the last step until its
// request is shown in full. Every step logs a `request/sent` with its exact digest (bench/request-fixture.mjs), so
// the server re-derives and hashes 600 bodies, as `rein sessions verify` does. "cold" re-reads and re-derives the
// log (its mtime is touched first); "warm" finds the derivation cached for the log's version. The server part
// (`GET /inspect` alone) is timed too. Each figure is the median of RUNS runs (default 3).
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { Session } from '../dist/session/session.js'
import { JsonlStore } from '../dist/store/jsonl-store.js'
import { startWebServer } from '../dist/web/server.js'
import { requestRecorder } from './request-fixture.mjs'
import { appendRealisticTurn, random } from './session-fixture.mjs'

const STEPS = Number(process.env.STEPS ?? 600)
const STEPS_PER_TURN = 6
const RUNS = Number(process.env.RUNS ?? 3)
const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p))
if (!executablePath) {
  console.error('web-inspector: no Chromium found; install it (apt-get install -y chromium) or set CHROMIUM_PATH.')
  process.exit(1)
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const root = mkdtempSync(join(tmpdir(), 'rein-bench-inspector-'))
const home = join(root, 'home')
const cwd = join(root, 'project')
mkdirSync(cwd, { recursive: true })
let server
let browser
try {
  const built = performance.now()
  const session = await Session.create(new JsonlStore(home), { cwd })
  const rand = random(23)
  const request = requestRecorder()
  // Tool outputs of 0.2–1.4 KB (the fixture's default is 1–24 KB) keep the last of 600 requests near 2.4 MB.
  for (let turn = 1; turn <= STEPS / STEPS_PER_TURN; turn++) {
    appendRealisticTurn(session, turn, rand, STEPS_PER_TURN, { request, outputChars: [200, 1200] })
    if (turn % 10 === 0) await session.flush()
  }
  await session.close()
  const file = session.path
  const size = statSync(file).size
  const requests = session.events.filter((e) => e.type === 'request/sent')
  const lastBytes = requests[requests.length - 1].data.bytes
  const buildMs = performance.now() - built

  server = await startWebServer({ root: cwd, home, port: 0 })
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  const first = await context.newPage()
  await first.goto(server.address)
  await first.getByRole('button', { name: 'New session' }).waitFor()
  await first.close()

  const touch = () => {
    const now = new Date(Date.now() + Math.random() * 1000)
    utimesSync(file, now, now)
  }
  const api = async () => {
    const start = performance.now()
    const steps = await (await fetch(`${server.origin}/api/sessions/${session.id}/inspect`, { headers: { authorization: `Bearer ${server.token}` } })).json()
    return { ms: performance.now() - start, steps: steps.steps ?? steps }
  }
  const open = async () => {
    const page = await context.newPage()
    const start = performance.now()
    await page.goto(`${server.origin}/#/s/${session.id}/inspect`)
    const rows = page.locator('table.steps tbody tr')
    await rows.nth(requests.length - 1).waitFor()
    const interactive = performance.now() - start
    const chose = performance.now()
    await rows.nth(requests.length - 1).locator('a').click()
    await page.locator('#chosen-request').waitFor()
    const chosen = performance.now() - chose
    const matching = await page.locator('td[data-digest=match]').count()
    await page.close()
    return { interactive, chosen, matching }
  }

  const cold = []
  const warm = []
  const choose = []
  const apiCold = []
  const apiWarm = []
  let matching = 0
  let listed = 0
  for (let i = 0; i < RUNS; i++) {
    touch()
    const c = await api()
    apiCold.push(c.ms)
    listed = Array.isArray(c.steps) ? c.steps.length : 0
    apiWarm.push((await api()).ms)
    touch()
    cold.push((await open()).interactive)
    const w = await open()
    warm.push(w.interactive)
    choose.push(w.chosen)
    matching = w.matching
  }
  const ms = (values) => `${Math.round(median(values)).toLocaleString('en')} ms median (${values.map((v) => Math.round(v).toLocaleString('en')).join(', ')})`
  console.log(`session: ${STEPS} steps, ${session.length.toLocaleString('en')} events, ${(size / 1024 / 1024).toFixed(1)} MB; ${requests.length} requests, the last ${(lastBytes / 1024).toFixed(0)} KB; fixture built in ${(buildMs / 1000).toFixed(1)} s`)
  console.log(`inspector in the browser, cold (log re-read and re-derived): ${ms(cold)}`)
  console.log(`inspector in the browser, warm: ${ms(warm)}`)
  console.log(`choosing the last step until its request shows: ${ms(choose)}`)
  console.log(`server part (GET /inspect), cold: ${ms(apiCold)}; warm: ${ms(apiWarm)}`)
  console.log(`steps listed by the server: ${listed}; rows whose digest matches the log: ${matching} of ${requests.length}`)
} finally {
  await browser?.close()
  await server?.close()
  rmSync(root, { recursive: true, force: true })
}
