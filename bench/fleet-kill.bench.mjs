// 200 scripted tasks (BENCH_FLEET_TASKS) through 4 workers (2 tasks each at once) against the mock model, one
// worker killed with SIGKILL (its whole process group, as if its machine died) once a quarter of the tasks are done.
// Prints tasks completed, retried, resumed (a retry that continued the task's session log), lost (must be 0) and run
// twice (must be 0), read from the database and the session logs, not from the workers' word.
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { startMockModel } from '../dist/llm/mock/server.js'
import { startPostgres } from './pg-server.mjs'

const TASKS = Number(process.env.BENCH_FLEET_TASKS) || 200
const WORKERS = 4
const EACH = 2
const CLI = resolve(import.meta.dirname, '../dist/cli/main.js')

const root = mkdtempSync(join(tmpdir(), 'rein-bench-fleet-'))
const server = await startPostgres()
// Every answer takes a moment, so a killed worker is caught with tasks in flight.
const mock = await startMockModel({ script: [{ match: /task/, text: 'done', delayMs: 1500, repeat: true }] })
const workers = []
try {
  const project = join(root, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'README.md'), 'a small project\n')
  const file = join(root, 'fleet.jsonl')
  writeFileSync(file, Array.from({ length: TASKS }, (_, i) => JSON.stringify({ id: `task-${i}`, cwd: 'project', prompt: `task ${i}: say done` })).join('\n'))
  const env = {
    ...process.env,
    REIN_HOME: join(root, 'home'),
    REIN_STORE: server.url,
    DEEPSEEK_BASE_URL: mock.url,
    DEEPSEEK_API_KEY: 'sk-bench-not-a-key',
    REIN_WORKER_STALE_MS: '3000',
    REIN_QUEUE_MAINTENANCE_S: '2',
  }
  const queued = spawnSync(process.execPath, [CLI, 'batch', file, '--detach'], { cwd: root, env, encoding: 'utf8' })
  if (queued.status !== 0) throw new Error(queued.stderr)
  const start = performance.now()
  for (let i = 0; i < WORKERS; i++) {
    const child = spawn(process.execPath, [CLI, 'worker', '--concurrency', String(EACH), '--workdir', join(root, `machine-${i}`)], {
      cwd: root,
      env,
      stdio: 'ignore',
      detached: true,
    })
    workers.push(child)
  }
  const db = new pg.Client({ connectionString: server.url })
  await db.connect()
  const count = async (sql, params = []) => (await db.query(sql, params)).rows[0].n
  let killedAt
  for (;;) {
    const final = await count(`SELECT count(*)::int AS n FROM rein_batch_tasks WHERE status IN ('completed', 'failed', 'timeout')`)
    if (killedAt === undefined && final >= TASKS / 4) {
      const victim = workers[0]
      const running = await count(`SELECT count(*)::int AS n FROM rein_batch_tasks WHERE status = 'running' AND worker LIKE $1`, [`%:${victim.pid}`])
      process.kill(-victim.pid, 'SIGKILL')
      killedAt = { final, running }
    }
    if (final === TASKS) break
    if (performance.now() - start > 20 * 60_000) throw new Error('the fleet did not finish in 20 minutes')
    await sleep(250)
  }
  const seconds = (performance.now() - start) / 1000
  const completed = await count(`SELECT count(*)::int AS n FROM rein_batch_tasks WHERE status = 'completed'`)
  const retried = await count(`SELECT count(*)::int AS n FROM rein_batch_tasks WHERE attempts > 1`)
  const perSession = `SELECT e.session_id, count(*) FILTER (WHERE e.record->>'type' = 'user/message') AS prompts,
                        count(*) FILTER (WHERE e.record->>'type' = 'turn/end' AND e.record->'data'->>'reason' = 'completed') AS completions,
                        count(*) FILTER (WHERE e.record->>'type' = 'turn/end' AND e.record->'data'->>'reason' = 'interrupted') AS interrupted
                      FROM rein_events e GROUP BY e.session_id`
  const resumed = await count(`SELECT count(*)::int AS n FROM (${perSession}) s WHERE s.prompts > 1 OR s.interrupted > 0`)
  const twiceInSession = await count(`SELECT count(*)::int AS n FROM (${perSession}) s WHERE s.completions > 1`)
  const sessions = await count('SELECT count(*)::int AS n FROM rein_sessions')
  await db.end()
  console.log(`${TASKS} tasks, ${WORKERS} workers × ${EACH}, worker 1 killed (SIGKILL) after ${killedAt.final} tasks with ${killedAt.running} running`)
  console.log(`wall time:    ${seconds.toFixed(1)} s (${(TASKS / seconds).toFixed(1)} tasks/s on this machine)`)
  console.log(`completed:    ${completed}`)
  console.log(`retried:      ${retried}`)
  console.log(`resumed:      ${resumed} (a retry continued the session log an earlier attempt wrote)`)
  console.log(`lost:         ${TASKS - completed} (must be 0)`)
  console.log(`run twice:    ${twiceInSession + Math.max(0, sessions - TASKS)} (must be 0; ${sessions} sessions for ${TASKS} tasks)`)
} finally {
  for (const worker of workers) {
    try {
      process.kill(-worker.pid, 'SIGTERM')
    } catch {
      // Already gone (the killed one).
    }
  }
  await sleep(2000)
  for (const worker of workers) {
    try {
      process.kill(-worker.pid, 'SIGKILL')
    } catch {
      // Stopped on SIGTERM.
    }
  }
  await mock.close()
  server.stop()
  rmSync(root, { recursive: true, force: true })
}
