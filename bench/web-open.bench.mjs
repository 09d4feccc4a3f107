// Opening a 10,000-event session in `rein web`: from navigation to the session's address until its newest reply is
// on screen, in Debian's Chromium driven by playwright-core. The session is realistic: every request is logged with
// its exact digest, and it compacts as a real session does (the real Compactor before each request, so no request
// outgrows the 128K window; bench/request-fixture.mjs). "cold" re-reads the log (its mtime is touched before each
// run, so the server's parsed copy is stale); "warm" is a page opened again with the server's copy current. The
// server-side part (session facts + the newest page of events, as the page asks for them) is timed on its own, and
// the server's digest check of every request is counted. Target: under 1 s. Each figure is the median of 5 runs.
import { startWebServer } from '../dist/web/server.js'
import { benchSession, chromiumOrExit, describeSession, figure, load, scratch, timedGet, touch, warmBrowser } from './web-bench.mjs'

const EVENTS = 10_000
const RUNS = 5
const executablePath = chromiumOrExit('web-open')

const dirs = scratch('rein-bench-web-')
let server
let browser
try {
  const s = await benchSession({ ...dirs, seed: 19, events: EVENTS, requests: 'compacting' })
  server = await startWebServer({ root: dirs.cwd, home: dirs.home, port: 0 })
  let context
  ;({ browser, context } = await warmBrowser(executablePath, server, { width: 1200, height: 800 }))

  const open = async () => {
    const page = await context.newPage()
    const start = performance.now()
    await page.goto(`${server.origin}/#/s/${s.session.id}`)
    await page.locator('.msg.assistant').last().waitFor()
    const ms = performance.now() - start
    const rendered = await page.locator('[data-key]').count()
    await page.close()
    return { ms, rendered }
  }
  const api = async () => {
    const facts = await timedGet(server, `/api/sessions/${s.session.id}`)
    const events = await timedGet(server, `/api/sessions/${s.session.id}/events?limit=400&before=${facts.json.total}`)
    return facts.ms + events.ms
  }

  console.log(`${load()} at the start`)
  const cold = []
  const warm = []
  const apiCold = []
  const apiWarm = []
  let rendered = 0
  for (let i = 0; i < RUNS; i++) {
    touch(s.file)
    apiCold.push(await api())
    apiWarm.push(await api())
    touch(s.file)
    cold.push((await open()).ms)
    const w = await open()
    warm.push(w.ms)
    rendered = w.rendered
  }
  const inspected = await timedGet(server, `/api/sessions/${s.session.id}/inspect`)
  const matching = (inspected.json?.steps ?? []).filter((step) => step.matches).length
  console.log(`session: ${describeSession(s)}; the page loads the newest 400 events and renders ${rendered} transcript entries`)
  console.log(`open in the browser, cold: ${figure(cold)}, target < 1,000 ms`)
  console.log(`open in the browser, warm: ${figure(warm)}`)
  console.log(`server part (facts + newest page), cold: ${figure(apiCold)}; warm: ${figure(apiWarm)}`)
  console.log(`requests whose digest the server re-derives and matches: ${matching} of ${s.sent.length} (GET /inspect, ${Math.round(inspected.ms).toLocaleString('en')} ms)`)
  console.log(`${load()} at the end`)
} finally {
  await browser?.close()
  await server?.close()
  dirs.remove()
}
