// The first re-derive of a log: every request of web-inspector's 600-step session (never compacted, the last body
// 2.4 MB) re-derived and digest-checked, as `rein sessions verify` and the inspector's first `GET /inspect` do. Each
// figure comes from a fresh process that loads the log, then derives: the time of the derive and the process's peak
// RSS before and after it. BEFORE=<another build's dist> (e.g. /work/main/dist) measures that build too, alternately.
// Medians of RUNS runs (default 3).
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { benchSession, load, median, scratch } from './web-bench.mjs'

const [, , mode, dist, home, id] = process.argv
if (mode === 'child') {
  const { readSessionLog } = await import(`${dist}/session/load.js`)
  const { JsonlStore } = await import(`${dist}/store/jsonl-store.js`)
  const { requestDigestCheck } = await import(`${dist}/session/replay.js`)
  const { adaptersFor } = await import(`${dist}/frontend/session-requests.js`)
  const log = await readSessionLog(new JsonlStore(home), id)
  const rssBefore = process.resourceUsage().maxRSS
  const start = performance.now()
  const problems = requestDigestCheck(adaptersFor())(log.header, log.events)
  const ms = performance.now() - start
  console.log(JSON.stringify({ ms, problems: problems.length, rssBefore: rssBefore / 1024, rssAfter: process.resourceUsage().maxRSS / 1024 }))
  process.exit(0)
}

const STEPS = Number(process.env.STEPS ?? 600)
const RUNS = Number(process.env.RUNS ?? 3)
const builds = [fileURLToPath(new URL('../dist', import.meta.url)), ...(process.env.BEFORE ? [process.env.BEFORE] : [])]
const dirs = scratch('rein-bench-derive-')
try {
  const s = await benchSession({ ...dirs, seed: 23, turns: STEPS / 6, outputChars: [200, 1200], requests: 'plain' })
  console.log(`${STEPS} steps: ${s.sent.length} requests, the largest ${Math.round(s.largest / 1024)} KB; ${load()} at the start`)
  const runs = new Map(builds.map((b) => [b, []]))
  for (let i = 0; i < RUNS; i++) {
    for (const b of builds) {
      const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), 'child', b, dirs.home, s.session.id], { encoding: 'utf8', maxBuffer: 1 << 20 })
      runs.get(b).push(JSON.parse(out.trim().split('\n').pop()))
    }
  }
  for (const [b, r] of runs) {
    const m = (f) => Math.round(median(r.map(f))).toLocaleString('en')
    console.log(`${b}: derive and digest-check ${m((x) => x.ms)} ms; peak RSS ${m((x) => x.rssBefore)} MB after loading the log, ${m((x) => x.rssAfter)} MB after deriving; ${r[0].problems} mismatches (runs: ${r.map((x) => `${Math.round(x.ms)} ms/${Math.round(x.rssAfter)} MB`).join(', ')})`)
  }
  console.log(`${load()} at the end`)
} finally {
  dirs.remove()
}
