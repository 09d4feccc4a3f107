// The fleet under every fault of issue 35 in one run, then its throughput without faults (docs/fleet.md).
// BENCH_FLEET_TASKS tasks (default 200) on 4 workers × 2 against the mock model. Each task's first answer runs a bash
// command that appends the task's id to a side-effects file outside every workspace, so "run twice" and "lost" are
// counted from what the tasks did, not from the fleet's own bookkeeping. Faults, each once a share of the tasks is final:
//   15% SIGKILL of worker 1's process group (its machine died)
//   30% SIGSTOP of worker 2 past the stale time, then SIGCONT (a paused VM)
//   45% pg_terminate_backend of every connection
//   60% a database restart
//   75% SIGKILL of one running task's `rein -p` (the worker lives)
// Prints lost, run twice, the workers that exited (must be the killed one only), the time from each fault to the next
// completed task, and tasks/s and CPU seconds per task for 1, 2 and 4 workers (BENCH_FLEET_THROUGHPUT_TASKS, default 40).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { startMockModel } from '../dist/llm/mock/server.js'
import { startPostgres } from './pg-server.mjs'

const TASKS = Number(process.env.BENCH_FLEET_TASKS) || 200
const THROUGHPUT_TASKS = Number(process.env.BENCH_FLEET_THROUGHPUT_TASKS) || 40
const CLI = resolve(import.meta.dirname, '../dist/cli/main.js')
const STALE_MS = 3000

/** One batch on a fresh database: workers started through `sh` so their CPU (with their children's) can be read at exit. */
async function runFleet({ tasks, workers: count, faults }) {
  const root = mkdtempSync(join(tmpdir(), 'rein-bench-fault-'))
  const server = await startPostgres()
  const effects = join(root, 'side-effects.log')
  const mock = await startMockModel({
    // Per task, in order: the command, then the answer. A resumed task is told it was interrupted and answers.
    script: [
      ...Array.from({ length: tasks }, (_, i) => [
        { match: `task ${i}:`, toolCalls: [{ name: 'bash', arguments: { command: `echo task-${i} >> ${effects}` } }], delayMs: 300 },
        { match: `task ${i}:`, text: 'done', delayMs: 300 },
      ]).flat(),
      { match: 'interrupted before it finished', text: 'done', repeat: true },
    ],
  })
  const workers = []
  const faultTimes = []
  try {
    const project = join(root, 'project')
    mkdirSync(project)
    writeFileSync(join(project, 'README.md'), 'a small project\n')
    const file = join(root, 'fleet.jsonl')
    const lines = Array.from({ length: tasks }, (_, i) => JSON.stringify({ id: `task-${i}`, cwd: 'project', prompt: `task ${i}: note yourself`, permission_mode: 'bypass' }))
    writeFileSync(file, lines.join('\n'))
    const env = {
      ...process.env,
      REIN_HOME: join(root, 'home'),
      REIN_STORE: server.url,
      DEEPSEEK_BASE_URL: mock.url,
      DEEPSEEK_API_KEY: 'sk-bench-not-a-key',
      REIN_WORKER_STALE_MS: String(STALE_MS),
      REIN_QUEUE_MAINTENANCE_S: '2',
    }
    const queued = spawnSync(process.execPath, [CLI, 'batch', file, '--detach'], { cwd: root, env, encoding: 'utf8' })
    if (queued.status !== 0) throw new Error(queued.stderr)
    const start = performance.now()
    for (let i = 0; i < count; i++) {
      const times = join(root, `times-${i}`)
      // `times` prints the shell's children's user and system seconds: the worker and every task it waited for.
      const line = `"${process.execPath}" "${CLI}" worker --concurrency 2 --max-permission-mode bypass --workdir "${join(root, `machine-${i}`)}"; code=$?; times > "${times}"; exit $code`
      const child = spawn('sh', ['-c', line], { cwd: root, env, stdio: 'ignore', detached: true })
      const worker = { child, times, exit: undefined }
      child.on('close', (code, signal) => (worker.exit = { code, signal, at: performance.now() }))
      workers.push(worker)
    }
    const db = new pg.Client({ connectionString: server.url })
    db.on('error', () => {})
    const connect = async () => {
      const client = new pg.Client({ connectionString: server.url })
      client.on('error', () => {})
      await client.connect()
      return client
    }
    let watcher = await connect()
    const count1 = async (sql, params = []) => {
      for (;;) {
        try {
          return (await watcher.query(sql, params)).rows[0].n
        } catch {
          await sleep(200)
          watcher = await connect().catch(() => watcher)
        }
      }
    }
    const finalCount = () => count1(`SELECT count(*)::int AS n FROM rein_batch_tasks WHERE status IN ('completed', 'failed', 'timeout', 'cancelled')`)
    const pending = [...faults]
    for (;;) {
      const final = await finalCount()
      while (pending.length && final >= tasks * pending[0].at) {
        const fault = pending.shift()
        const what = await fault.run({ workers, server, count1 })
        faultTimes.push({ what, at: performance.now(), final })
      }
      for (const f of faultTimes) if (f.recovered === undefined && final > f.final) f.recovered = performance.now() - f.at
      if (final === tasks) break
      if (performance.now() - start > 30 * 60_000) throw new Error('the fleet did not finish in 30 minutes')
      await sleep(200)
    }
    const seconds = (performance.now() - start) / 1000
    const completed = await count1(`SELECT count(*)::int AS n FROM rein_batch_tasks WHERE status = 'completed'`)
    const failures = (await watcher.query(`SELECT task_id, status, result->>'error' AS error FROM rein_batch_tasks WHERE status <> 'completed'`)).rows
    const twiceInLog = await count1(`SELECT count(*)::int AS n FROM (SELECT e.session_id FROM rein_events e
      WHERE e.record->>'type' = 'turn/end' AND e.record->'data'->>'reason' = 'completed' GROUP BY e.session_id HAVING count(*) > 1) s`)
    await watcher.end().catch(() => {})
    db.end().catch(() => {})
    // SIGTERM to the worker itself (not its shell), which drains and exits; the shell then writes its times.
    for (const worker of workers) if (worker.exit === undefined) for (const pid of workerPids(worker)) process.kill(pid, 'SIGTERM')
    for (const worker of workers) while (worker.exit === undefined) await sleep(100)
    const cpu = workers.reduce((sum, w) => sum + cpuOf(w.times), 0)
    const marks = existsSync(effects) ? readFileSync(effects, 'utf8').trim().split('\n').filter(Boolean) : []
    const perTask = new Map()
    for (const id of marks) perTask.set(id, (perTask.get(id) ?? 0) + 1)
    return {
      seconds,
      completed,
      failures,
      twice: [...perTask.values()].filter((n) => n > 1).length,
      twiceInLog,
      withoutEffect: tasks - perTask.size,
      exits: workers.map((w, i) => ({ i: i + 1, ...w.exit })),
      faults: faultTimes,
      cpuPerTask: cpu / tasks,
    }
  } finally {
    for (const worker of workers) {
      try {
        process.kill(-worker.child.pid, 'SIGKILL')
      } catch {
        // Gone already.
      }
    }
    await mock.close()
    server.stop()
    rmSync(root, { recursive: true, force: true })
  }
}

/** User + system seconds of a worker and its children, from the `times` output its shell wrote at exit (second line). */
function cpuOf(file) {
  if (!existsSync(file)) return 0
  const children = readFileSync(file, 'utf8').trim().split('\n')[1] ?? ''
  return children
    .split(/\s+/)
    .map((t) => /^(\d+)m([\d.]+)s$/.exec(t))
    .filter(Boolean)
    .reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0)
}

/** The worker process under its shell. */
function workerPids(worker) {
  const out = spawnSync('pgrep', ['-P', String(worker.child.pid)], { encoding: 'utf8' }).stdout
  return out.split('\n').filter(Boolean).map(Number)
}

/** The pids of a worker's running `rein -p` children (its shell's grandchildren). */
function taskChildren(worker) {
  const out = spawnSync('ps', ['-o', 'pid=,args=', '-g', String(worker.child.pid)], { encoding: 'utf8' }).stdout
  return out.split('\n').filter((l) => l.includes(' -p ') && l.includes('--output-format')).map((l) => Number(l.trim().split(/\s+/)[0]))
}

const faults = [
  { at: 0.15, run: async ({ workers }) => (process.kill(-workers[0].child.pid, 'SIGKILL'), 'SIGKILL of worker 1 and its tasks') },
  {
    at: 0.3,
    run: async ({ workers }) => {
      const worker = workers[1]
      const [pid] = workerPids(worker)
      process.kill(pid, 'SIGSTOP')
      setTimeout(() => process.kill(pid, 'SIGCONT'), STALE_MS * 2).unref()
      return `SIGSTOP of worker 2 for ${(STALE_MS * 2) / 1000} s`
    },
  },
  {
    at: 0.45,
    run: async ({ count1 }) => {
      const n = await count1(`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname IS NOT NULL`)
      return `pg_terminate_backend of ${n} connections`
    },
  },
  { at: 0.6, run: async ({ server }) => (server.restart(), 'database restart') },
  {
    at: 0.75,
    run: async ({ workers }) => {
      const pids = workers.slice(2).flatMap(taskChildren)
      if (pids.length) process.kill(pids[0], 'SIGKILL')
      return `SIGKILL of one task's rein -p (${pids.length ? 'found' : 'none running'})`
    },
  },
]

const faulty = await runFleet({ tasks: TASKS, workers: 4, faults })
console.log(`${TASKS} tasks, 4 workers × 2, every fault in one run: ${faulty.seconds.toFixed(1)} s`)
for (const f of faulty.faults) console.log(`  ${f.what.padEnd(48)} next task completed ${f.recovered === undefined ? 'never' : `${(f.recovered / 1000).toFixed(1)} s`} later`)
console.log(`completed:        ${faulty.completed} of ${TASKS}`)
console.log(`lost:             ${TASKS - faulty.completed} (must be 0)`)
for (const f of faulty.failures) console.log(`  ${f.task_id} ${f.status}: ${f.error}`)
console.log(`run twice:        ${faulty.twice} by side effect, ${faulty.twiceInLog} by completed turns in the log (must be 0)`)
console.log(`no side effect:   ${faulty.withoutEffect} (tasks interrupted before their command ran, completed on resume by the scripted model)`)
console.log(`worker exits:     ${faulty.exits.map((e) => `worker ${e.i}: ${e.signal ?? `exit ${e.code}`}`).join(', ')} (worker 1 was killed; the rest must exit 0 on SIGTERM)`)

const base = []
for (const workers of [1, 2, 4]) {
  const run = await runFleet({ tasks: THROUGHPUT_TASKS, workers, faults: [] })
  base.push({ workers, ...run })
  console.log(`${workers} worker(s) × 2, ${THROUGHPUT_TASKS} tasks, no faults: ${(THROUGHPUT_TASKS / run.seconds).toFixed(2)} tasks/s, ${run.cpuPerTask.toFixed(2)} CPU s per task`)
}
console.log(`speed-up 1 → 4 workers: ${(base[0].seconds / base[2].seconds).toFixed(2)}×`)
