// The cost of one turn as a session grows, in one process: TURNS turns (default 3,000; LONG_SESSION_TURNS sets it),
// each a prompt, one `read` of a small file and a short answer, against the mock model in a child process (so its own
// O(request) work does not land on Rein's clock). A turn's cost is its wall time minus the time spent inside the
// model stream (request on the wire, the mock's work, the answer's bytes): what Rein itself does per turn — the log,
// the projection, encoding the body and its digest, context producers, the tool. Prints the median over a window of
// 21 turns at turns 250, 1,000 and 3,000 (and the last turn), in wall time less the model stream and in the session
// process's CPU time, and the ratio of the last to turn 250 in CPU time (robust to the machine's load).
//
// Each build runs in its own process (a worker: this file with `--worker <root>`), so heaps and GC stay apart.
// LONG_SESSION_BEFORE=<root of another build> runs that build beside this one, turn by turn alternating, so the
// machine's load lands on both alike; the figures are printed per build. LONG_SESSION_WORKER_ARGS adds Node flags to
// the workers (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
// Goal (issue 36): turn 3,000 costs at most 1.5× turn 250. Needs the build. Loopback and temp dirs only.
import { spawn } from 'node:child_process'
import { loadavg } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const TURNS = Number(process.env.LONG_SESSION_TURNS ?? 3000)
const MARKS = [...new Set([250, 1000, 3000, TURNS])].filter((m) => m <= TURNS).sort((a, b) => a - b)
const GOAL = 1.5
const WINDOW = 10
const here = dirname(fileURLToPath(import.meta.url))

if (process.argv[2] === '--worker') {
  const { runWorker } = await import('./long-session-worker.mjs')
  await runWorker(resolve(process.argv[3]), TURNS)
} else {
  await compare()
}

/** One worker per build; `turn` asks it for one turn and resolves with `{ wall, cpu }` in ms. */
function startWorker(name, root) {
  const extra = (process.env.LONG_SESSION_WORKER_ARGS ?? '').split(' ').filter(Boolean)
  const child = spawn(process.execPath, [...extra, fileURLToPath(import.meta.url), '--worker', root], { stdio: ['pipe', 'pipe', 'inherit'] })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const next = async () => {
    const { value, done } = await lines.next()
    if (done) throw new Error(`${name}: the worker ended early (exit ${child.exitCode})`)
    return JSON.parse(value)
  }
  return {
    name,
    ready: next(),
    costs: [],
    cpu: [],
    async turn() {
      child.stdin.write('turn\n')
      const reply = await next()
      if (reply.error) throw new Error(`${name}: ${reply.error}`)
      this.costs.push(reply.wall)
      this.cpu.push(reply.cpu)
    },
    async end() {
      child.stdin.end('end\n')
      const reply = await next()
      await exited
      return reply.rss
    },
    kill: () => child.kill(),
  }
}

async function compare() {
  const builds = [['now', join(here, '..')]]
  if (process.env.LONG_SESSION_BEFORE) builds.unshift(['before', resolve(process.env.LONG_SESSION_BEFORE)])
  const workers = builds.map(([name, root]) => startWorker(name, root))
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const at = (mark, xs) => median(xs.slice(Math.max(0, mark - 1 - WINDOW), Math.min(xs.length, mark + WINDOW)))
  const label = (w) => (workers.length > 1 ? `${w.name.padEnd(6)} ` : '')
  try {
    await Promise.all(workers.map((w) => w.ready))
    for (let i = 0; i < TURNS; i++) {
      // Alternate which build goes first, so neither always runs right after the other's GC or flush.
      const order = i % 2 === 0 ? workers : [...workers].reverse()
      for (const w of order) await w.turn()
      // Each mark is printed as soon as its window is complete, so a run cut short still reports what it reached.
      for (const mark of MARKS) {
        if (i + 1 !== Math.min(TURNS, mark + WINDOW)) continue
        for (const w of workers) {
          console.log(`${label(w)}turn ${String(mark).padStart(5)}: ${at(mark, w.costs).toFixed(1)} ms of Rein's own time, ${at(mark, w.cpu).toFixed(1)} ms CPU (load average ${loadavg()[0].toFixed(1)})`)
        }
      }
    }
    for (const w of workers) console.log(`${label(w)}rss after ${TURNS} turns: ${((await w.end()) / 1e6).toFixed(0)} MB`)
  } finally {
    for (const w of workers) w.kill()
  }
  if (MARKS.length < 2) return
  const last = MARKS[MARKS.length - 1]
  for (const w of workers) {
    const ratio = at(last, w.cpu) / at(250, w.cpu)
    console.log(`${label(w)}turn ${last} / turn 250, wall time less the model stream: ${(at(last, w.costs) / at(250, w.costs)).toFixed(2)}× (load-dependent)`)
    console.log(`${label(w)}turn ${last} / turn 250, CPU time: ${ratio.toFixed(2)}× (goal ≤ ${GOAL}×: ${ratio <= GOAL ? 'met' : 'NOT met'})`)
  }
}
