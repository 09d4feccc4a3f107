// The inspector of `rein web` on two sessions whose every request is logged with its exact digest:
// - "600 steps": 100 turns of 6 steps that never compact (tool outputs of 0.2–1.4 KB), so the last request is a
//   2.4 MB body of 600+ messages — the worst case for choosing a step;
// - "10,000 events": web-open's session, which compacts as a real one does (the real Compactor before each request,
//   bench/request-fixture.mjs), so every request fits the 128K window.
// For each: from navigation to `#/s/<id>/inspect` until the steps table is interactive (its first row and the totals
// drawn), choosing the last step (scrolled to in the table's box) until its request's messages show, and the server
// parts (`GET /inspect`, `GET /requests/:seq`, the exact body's download). "cold" re-reads and re-derives the log (its mtime touched first); "warm" finds the
// derivation cached. With BEFORE=<another build's dist> (e.g. /work/main/dist) a second server from that build serves
// the same sessions, and choosing the last step is timed on both in the same run, alternately, with the ratio.
// Each figure is the median of RUNS runs (default 3).
import { startWebServer } from '../dist/web/server.js'
import { benchSession, chromiumOrExit, describeSession, figure, load, median, scratch, timedGet, touch, warmBrowser } from './web-bench.mjs'

const STEPS = Number(process.env.STEPS ?? 600)
const EVENTS = Number(process.env.EVENTS ?? 10_000)
const RUNS = Number(process.env.RUNS ?? 3)
const BEFORE = process.env.BEFORE
const executablePath = chromiumOrExit('web-inspector')

const dirs = scratch('rein-bench-inspector-')
const servers = []
let browser
try {
  const sessions = [
    { name: `${STEPS} steps, never compacted`, ...(await benchSession({ ...dirs, seed: 23, turns: STEPS / 6, outputChars: [200, 1200], requests: 'plain' })) },
    { name: `${EVENTS.toLocaleString('en')} events, compacting`, ...(await benchSession({ ...dirs, seed: 19, events: EVENTS, requests: 'compacting' })) },
  ]
  const server = await startWebServer({ root: dirs.cwd, home: dirs.home, port: 0 })
  servers.push(server)
  const before = BEFORE ? await (await import(`${BEFORE}/web/server.js`)).startWebServer({ root: dirs.cwd, home: dirs.home, port: 0 }) : undefined
  if (before) servers.push(before)
  let context
  ;({ browser, context } = await warmBrowser(executablePath, server, { width: 1280, height: 900 }))
  const beforeContext = before ? await browser.newContext({ viewport: { width: 1280, height: 900 } }) : undefined
  if (before && beforeContext) {
    // Signed in to the BEFORE server too (its cookie is named by its port).
    const page = await beforeContext.newPage()
    await page.goto(before.address)
    await page.getByRole('button', { name: 'New session' }).waitFor()
    await page.close()
  }

  /**
   * Opens the inspector on `on` until the steps table is interactive (its first row and the totals of every step
   * drawn: the table draws only the rows in its box), then scrolls the box to its end and chooses the last row until
   * its request's messages show. An older build that draws every row is waited for until its last row is drawn.
   */
  const open = async (on, ctx, s) => {
    const page = await ctx.newPage()
    const start = performance.now()
    await page.goto(`${on.origin}/#/s/${s.session.id}/inspect`)
    const last = s.sent[s.sent.length - 1].seq
    await page.locator('table.steps tbody tr[data-seq]').first().waitFor({ timeout: 120_000 })
    await page.locator('table.steps tfoot tr[data-totals]').waitFor({ timeout: 120_000 })
    const interactive = performance.now() - start
    const chose = performance.now()
    await page.locator('.steps-scroll').evaluate((el) => el.scrollTo({ top: el.scrollHeight })).catch(() => undefined)
    await page.locator(`table.steps tr[data-seq="${last}"] a`).click({ timeout: 120_000 })
    await page.locator('#chosen-request ol.messages > li').last().waitFor({ timeout: 120_000 })
    const chosen = performance.now() - chose
    const totals = page.locator('table.steps tfoot [data-matching]')
    const matching = (await totals.count()) ? Number(await totals.getAttribute('data-matching')) : await page.locator('td[data-digest=match]').count()
    const drawn = await page.locator('#chosen-request ol.messages > li').count()
    const rows = await page.locator('table.steps tbody tr[data-seq]').count()
    await page.close()
    return { interactive, chosen, matching, drawn, rows }
  }

  console.log(`${load()} at the start`)
  for (const s of sessions) {
    const id = s.session.id
    const last = s.sent[s.sent.length - 1]
    const f = { cold: [], warm: [], choose: [], apiCold: [], apiWarm: [], request: [], body: [], beforeCold: [], beforeWarm: [], beforeChoose: [] }
    let seen = { matching: 0, drawn: 0, rows: 0 }
    let listed = 0
    let answer = 0
    let download = 0
    for (let i = 0; i < RUNS; i++) {
      touch(s.file)
      const c = await timedGet(server, `/api/sessions/${id}/inspect`)
      f.apiCold.push(c.ms)
      listed = c.json?.steps?.length ?? 0
      f.apiWarm.push((await timedGet(server, `/api/sessions/${id}/inspect`)).ms)
      const r = await timedGet(server, `/api/sessions/${id}/requests/${last.seq}`)
      f.request.push(r.ms)
      answer = r.length
      const b = await timedGet(server, `/api/sessions/${id}/requests/${last.seq}/body`)
      f.body.push(b.ms)
      download = b.length
      touch(s.file)
      f.cold.push((await open(server, context, s)).interactive)
      const w = await open(server, context, s)
      f.warm.push(w.interactive)
      f.choose.push(w.chosen)
      seen = w
      if (before && beforeContext) {
        touch(s.file)
        f.beforeCold.push((await open(before, beforeContext, s)).interactive)
        const b = await open(before, beforeContext, s)
        f.beforeWarm.push(b.interactive)
        f.beforeChoose.push(b.chosen)
      }
    }
    console.log(`\n${s.name}: ${describeSession(s)}`)
    console.log(`  inspector in the browser, cold (log re-read and re-derived): ${figure(f.cold)}`)
    console.log(`  inspector in the browser, warm: ${figure(f.warm)}`)
    console.log(`  choosing the last step until its request's messages show: ${figure(f.choose)} (${seen.drawn} of its ${last.data.bytes.toLocaleString('en')}-byte request's messages drawn)`)
    if (f.beforeChoose.length) {
      console.log(`  on the BEFORE build (${BEFORE}): cold ${figure(f.beforeCold)}; warm ${figure(f.beforeWarm)} (${(median(f.beforeWarm) / median(f.warm)).toFixed(1)}× this build's)`)
      console.log(`  choosing the last step on the BEFORE build: ${figure(f.beforeChoose)}; ${(median(f.beforeChoose) / median(f.choose)).toFixed(1)}× this build's`)
    }
    console.log(`  server part: GET /inspect cold ${figure(f.apiCold)}; warm ${figure(f.apiWarm)}`)
    console.log(`  server part: GET /requests/${last.seq} (the last step, ${Math.round(answer / 1024)} KB of JSON) ${figure(f.request)}; its exact body (${Math.round(download / 1024).toLocaleString('en')} KB) ${figure(f.body)}`)
    console.log(`  steps listed by the server: ${listed}; steps whose digest matches the log: ${seen.matching} of ${s.sent.length}; rows drawn after choosing the last: ${seen.rows}`)
  }
  console.log(`\n${load()} at the end`)
} finally {
  await browser?.close()
  for (const s of servers) await s.close()
  dirs.remove()
}
