// What the live list (`GET /api/stream`) costs `rein web` while nothing happens, with 1,000 sessions of one workspace
// in the JSONL store and one page connected: the server's CPU time over IDLE_S seconds (default 30) and how many
// times it re-listed the sessions in that time, then how long another process's append takes to reach the stream.
// Two ways of noticing other processes' changes, each on a fresh server and home:
//   timer  — the store offers no watch, so the list re-checks every 5 s (what every server did before the watch)
//   watch  — the store's fs.watch on the sessions folders (src/store/listing-watch.ts)
// The load average it ran under is printed beside the figures.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../dist/session/session.js'
import { cwdKey } from '../dist/store/home.js'
import { JsonlStore } from '../dist/store/jsonl-store.js'
import { MemoryStore } from '../dist/store/memory-store.js'
import { startWebServer } from '../dist/web/server.js'
import { appendRealisticTurn, random } from './session-fixture.mjs'

const SESSIONS = Number(process.env.SESSIONS ?? 1_000)
const IDLE_S = Number(process.env.IDLE_S ?? 30)
const root = mkdtempSync(join(tmpdir(), 'rein-bench-web-list-idle-'))
const cwd = join(root, 'project')
mkdirSync(cwd, { recursive: true })

const memory = new MemoryStore()
const template = await Session.create(memory, { cwd, id: 'template' })
const rand = random(7)
for (let turn = 1; turn <= 2; turn++) appendRealisticTurn(template, turn, rand, 1)
await template.flush()
const [headerLine, ...eventLines] = memory.lines.get('template')
const body = `${eventLines.join('\n')}\n`

function makeHome(name) {
  const home = join(root, name)
  const dir = join(home, 'sessions', cwdKey(cwd))
  mkdirSync(dir, { recursive: true })
  const ids = []
  for (let i = 0; i < SESSIONS; i++) {
    const id = `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`
    writeFileSync(join(dir, `${id}.jsonl`), `${headerLine.replace('"template"', `"${id}"`)}\n${body}`)
    ids.push(id)
  }
  return { home, ids }
}

// Every listing of all sessions goes through JsonlStore.summaries('all'): count them.
let relists = 0
const summaries = JsonlStore.prototype.summaries
JsonlStore.prototype.summaries = function (which) {
  if (which === 'all') relists++
  return summaries.call(this, which)
}
const watchSummaries = JsonlStore.prototype.watchSummaries

async function measure(mode) {
  if (mode === 'timer') delete JsonlStore.prototype.watchSummaries
  else JsonlStore.prototype.watchSummaries = watchSummaries
  const { home, ids } = makeHome(`home-${mode}`)
  const server = await startWebServer({ root: cwd, home, port: 0 })
  const headers = { authorization: `Bearer ${server.token}` }
  try {
    // Every row's figures known first, so the idle time holds no catching up.
    while (JSON.parse(await (await fetch(`${server.origin}/api/sessions`, { headers })).text()).sessions.some((r) => r.pending)) {
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const stream = (await fetch(`${server.origin}/api/stream`, { headers })).body.getReader()
    const decoder = new TextDecoder()
    let text = ''
    const nextEtag = async () => {
      for (;;) {
        const match = /data: (\{.*\})\n/.exec(text)
        if (match) {
          text = text.slice(match.index + match[0].length)
          return JSON.parse(match[1]).etag
        }
        const { value, done } = await stream.read()
        if (done) throw new Error('the list stream ended')
        text += decoder.decode(value)
      }
    }
    await nextEtag()
    const startRelists = relists
    const startCpu = process.cpuUsage()
    await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000))
    const cpu = process.cpuUsage(startCpu)
    const idleRelists = relists - startRelists

    // Another process appends (a store of its own, not the server's): how long until the stream names the change.
    const elsewhere = new JsonlStore(home)
    const session = await Session.load(elsewhere, ids[SESSIONS >> 1])
    const changed = nextEtag()
    const began = performance.now()
    session.append('session/title', { title: 'renamed by another process' })
    await session.close()
    await changed
    const latency = performance.now() - began
    await stream.cancel()
    return { cpuMs: (cpu.user + cpu.system) / 1000, idleRelists, latency }
  } finally {
    await server.close()
    rmSync(home, { recursive: true, force: true })
  }
}

try {
  console.log(`${SESSIONS.toLocaleString('en-US')} sessions of ${(Buffer.byteLength(body) / 1024).toFixed(0)} KB each, one list stream open, ${IDLE_S} s idle`)
  for (const mode of ['timer', 'watch']) {
    const r = await measure(mode)
    console.log(
      `${mode.padEnd(5)}: server CPU ${r.cpuMs.toFixed(0)} ms over ${IDLE_S} s idle, ${r.idleRelists} re-lists; another process's append reached the stream in ${r.latency.toFixed(0)} ms; load ${loadavg()[0].toFixed(1)}`,
    )
  }
} finally {
  rmSync(root, { recursive: true, force: true })
}
