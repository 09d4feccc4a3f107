// Shared by the web benchmarks (web-open, web-inspector): where Chromium is, a scratch workspace and REIN_HOME, the
// bench sessions, a warmed-up browser, and how figures are printed. Not a benchmark itself (the runner only picks up
// *.bench.mjs).
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { Session } from '../dist/session/session.js'
import { JsonlStore } from '../dist/store/jsonl-store.js'
import { compactingRecorder, requestRecorder } from './request-fixture.mjs'
import { appendRealisticTurn, appendRealisticTurnAsync, random } from './session-fixture.mjs'

/** Debian's Chromium (or CHROMIUM_PATH); without one the bench says how to get it and exits. */
export function chromiumOrExit(bench) {
  const path = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p))
  if (path) return path
  console.error(`${bench}: no Chromium found; install it (apt-get install -y chromium) or set CHROMIUM_PATH.`)
  process.exit(1)
}

/** A scratch root with a REIN_HOME and a project directory; `remove()` deletes it all. */
export function scratch(prefix) {
  const root = mkdtempSync(join(tmpdir(), prefix))
  const home = join(root, 'home')
  const cwd = join(root, 'project')
  mkdirSync(cwd, { recursive: true })
  return { root, home, cwd, remove: () => rmSync(root, { recursive: true, force: true }) }
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const whole = (v) => Math.round(v).toLocaleString('en')
/** `1,234 ms median (runs …)`. */
export const figure = (values) => `${whole(median(values))} ms median (${values.map(whole).join(', ')})`
/** The load average over the last minute, as the figures' context. */
export const load = () => `load average ${loadavg()[0].toFixed(1)}`

/** Touches `file`'s mtime, so a server's parsed copy of the log is stale. */
export function touch(file) {
  const now = new Date(Date.now() + Math.random() * 1000)
  utimesSync(file, now, now)
}

/**
 * Writes a bench session: realistic turns of `stepsPerTurn` steps (bench/session-fixture.mjs) until `turns` turns or
 * `events` events. `requests`: `none` logs no request events; `plain` logs the header and every step's exact digest;
 * `compacting` runs the real Compactor before each request as the agent does, so every request stays inside the
 * header's window. Returns the session and its figures.
 */
export async function benchSession({ home, cwd, seed, stepsPerTurn = 6, turns = Infinity, events = Infinity, outputChars, requests = 'none' }) {
  const started = performance.now()
  const session = await Session.create(new JsonlStore(home), { cwd })
  const rand = random(seed)
  const recorder = requests === 'compacting' ? compactingRecorder() : requests === 'plain' ? requestRecorder() : undefined
  for (let turn = 1; turn <= turns && session.length < events; turn++) {
    const options = { outputChars, ...(recorder ? { request: recorder } : {}) }
    if (requests === 'compacting') await appendRealisticTurnAsync(session, turn, rand, stepsPerTurn, options)
    else appendRealisticTurn(session, turn, rand, stepsPerTurn, options)
    if (turn % 10 === 0) await session.flush()
  }
  await session.close()
  const sent = session.events.filter((e) => e.type === 'request/sent')
  const steps = sent.filter((e) => e.data.purpose !== 'compaction')
  return {
    session,
    file: session.path,
    bytes: statSync(session.path).size,
    sent,
    /** The `request/sent` of each step (compaction requests left out): the inspector's step rows. */
    steps,
    largest: Math.max(0, ...sent.map((e) => e.data.bytes)),
    compactions: session.events.filter((e) => e.type === 'compaction/end' && e.data.outcome === 'replaced').length,
    summaries: sent.length - steps.length,
    buildMs: performance.now() - started,
  }
}

/** One line about a bench session: events, size, requests, the largest body and the compactions it holds. */
export function describeSession(s) {
  const mb = (s.bytes / 1024 / 1024).toFixed(1)
  const requests = s.sent.length
    ? `; ${s.sent.length.toLocaleString('en')} requests (${s.summaries} of them compaction summaries), the largest ${Math.round(s.largest / 1024).toLocaleString('en')} KB; ${s.compactions} compactions`
    : '; no request events'
  return `${s.session.length.toLocaleString('en')} events, ${mb} MB${requests}; built in ${(s.buildMs / 1000).toFixed(1)} s`
}

/** Chromium with one context at `viewport`, warmed up by loading the page once (the token traded for the cookie). */
export async function warmBrowser(executablePath, server, viewport) {
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
  const context = await browser.newContext({ viewport })
  const first = await context.newPage()
  await first.goto(server.address)
  await first.getByRole('button', { name: 'New session' }).waitFor()
  await first.close()
  return { browser, context }
}

/** A GET of the server's API with its token, timed; the parsed JSON (or undefined for a body that is not). */
export async function timedGet(server, path) {
  const start = performance.now()
  const response = await fetch(`${server.origin}${path}`, { headers: { authorization: `Bearer ${server.token}` } })
  const text = await response.text()
  const ms = performance.now() - start
  let json
  try {
    json = JSON.parse(text)
  } catch {
    // A download's bytes, not JSON: the caller reads the length.
  }
  return { ms, json, length: Buffer.byteLength(text) }
}
