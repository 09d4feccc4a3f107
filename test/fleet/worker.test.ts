import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CLI, cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { freshDatabase, onDatabase, postgresUrl } from '../support/postgres-db.js'
import { openQueue, QUEUE } from '../../src/fleet/queue.js'

let mock: MockModel | undefined
const workers: ChildProcess[] = []
afterEach(async () => {
  for (const worker of workers.splice(0)) {
    if (worker.exitCode === null && worker.signalCode === null) {
      worker.kill('SIGKILL')
      await new Promise((resolve) => worker.on('close', resolve))
    }
  }
  await mock?.close()
  mock = undefined
})

/** Starts `rein worker` in its own process group (so killing the group is like losing the machine). */
function startWorker(args: string[], cwd: string, env: NodeJS.ProcessEnv): { child: ChildProcess; log: () => string } {
  const child = spawn(process.execPath, [CLI, 'worker', ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true })
  workers.push(child)
  let log = ''
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()))
  return { child, log: () => log }
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 40_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe.runIf(postgresUrl)('rein batch and rein worker with a PostgreSQL store', () => {
  it('queues a batch, shows it in batch status, and workers run every task once while batch follows them to the results file', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({ script: [{ match: /task \d/, text: 'done by a worker', repeat: true }] })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url } })
    const file = join(box.root, 'nightly.jsonl')
    writeFileSync(file, Array.from({ length: 5 }, (_, i) => JSON.stringify({ id: `t${i}`, cwd: 'project', prompt: `task ${i}` })).join('\n'))

    const queued = await runCli(['batch', file, '--detach'], { cwd: box.root, env })
    expect(queued.stderr).toBe('rein: batch nightly: 5 of 5 tasks queued for rein worker.\nrein: follow it with `rein batch status --name nightly`.\n')
    const status = await runCli(['batch', 'status'], { cwd: box.root, env })
    expect(status.stdout).toBe('batch nightly: 5 tasks · queued 5 · running 0 · completed 0 · failed 0 · retried 0\nworkers: 0 live\n')
    const requeued = await runCli(['batch', file, '--detach'], { cwd: box.root, env })
    expect(requeued.stderr).toMatch(/^rein: batch nightly: 5 of 5 tasks queued/)

    const worker = startWorker(['--concurrency', '2'], box.root, env)
    const out = join(box.root, 'out.jsonl')
    const followed = await runCli(['batch', file, '--out', out], { cwd: box.root, env, timeoutMs: 60_000 })
    expect(followed.stderr).toContain(`rein: batch nightly finished: 5 completed, 0 failed; results in ${out}.\n`)
    expect(followed.code).toBe(0)
    const results = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
    expect(results.map((r) => r.id).sort()).toEqual(['t0', 't1', 't2', 't3', 't4'])
    expect(results.every((r) => r.status === 'completed' && r.result === 'done by a worker')).toBe(true)
    expect(mock.requests).toHaveLength(5)
    const listed = await runCli(['sessions', 'list', '--all'], { cwd: box.root, env })
    expect(listed.stdout.trim().split('\n')).toHaveLength(6)

    worker.child.kill('SIGTERM')
    const code = await new Promise<number | null>((resolve) => worker.child.on('close', resolve))
    expect(code).toBe(0)
    expect(worker.log()).toContain('is taking tasks (2 at a time).')
    const after = await runCli(['batch', 'status', '--name', 'nightly'], { cwd: box.root, env })
    expect(after.stdout).toMatch(/^batch nightly: 5 tasks · queued 0 · running 0 · completed 5 · failed 0 · retried 0\nworkers: 0 live\n$/)
  })

  it('a worker killed mid-task loses it to another worker, which resumes the task\'s session and completes it once', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({
      script: [
        { match: 'long task', delayMs: 120_000, text: 'never arrives' },
        { match: 'was interrupted', text: 'resumed and finished' },
      ],
    })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url, REIN_WORKER_STALE_MS: '1500', REIN_QUEUE_MAINTENANCE_S: '1' } })
    const file = join(box.root, 'one.jsonl')
    writeFileSync(file, JSON.stringify({ id: 'long', cwd: 'project', prompt: 'long task' }))
    await runCli(['batch', file, '--detach'], { cwd: box.root, env })

    const doomed = startWorker(['--concurrency', '1', '--workdir', join(box.root, 'machine-a')], box.root, env)
    await until('the first worker sent the model request', () => mock!.requests.length === 1)
    process.kill(-doomed.child.pid!, 'SIGKILL')
    await new Promise((resolve) => doomed.child.on('close', resolve))

    const rescuer = startWorker(['--concurrency', '1', '--workdir', join(box.root, 'machine-b')], box.root, env)
    const out = join(box.root, 'out.jsonl')
    const followed = await runCli(['batch', file, '--out', out], { cwd: box.root, env, timeoutMs: 60_000 })
    expect(followed.code).toBe(0)
    const [result] = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
    expect(result).toMatchObject({ id: 'long', status: 'completed', result: 'resumed and finished', attempts: 2 })
    expect(rescuer.log()).toMatch(/task one\/long: worker .* stopped answering; retrying the task\./)

    const exported = await runCli(['sessions', 'export', result.session_id], { cwd: box.root, env })
    const events = exported.stdout.trim().split('\n').slice(1).map((line) => JSON.parse(line))
    expect(events.filter((e) => e.type === 'user/message')).toHaveLength(2)
    expect(events.filter((e) => e.type === 'turn/end').map((e) => e.data.reason)).toEqual(['interrupted', 'completed'])
    const rows = await onDatabase(url, (db) => db.query('SELECT count(*)::int AS n FROM rein_sessions'))
    expect(rows.rows[0].n).toBe(1)
  })

  it('a task whose job a worker fetched but never started (the worker died at once) is retried by another worker', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({ script: [{ match: 'orphan', text: 'picked up again' }] })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url, REIN_WORKER_STALE_MS: '1500', REIN_QUEUE_MAINTENANCE_S: '1' } })
    const file = join(box.root, 'orphans.jsonl')
    writeFileSync(file, JSON.stringify({ id: 'orphan', cwd: 'project', prompt: 'orphan task' }))
    await runCli(['batch', file, '--detach'], { cwd: box.root, env })
    const dying = await openQueue(url)
    const fetched = await dying.fetch(QUEUE)
    expect(fetched).toHaveLength(1)
    await dying.stop({ graceful: false, wait: true })

    const rescuer = startWorker(['--concurrency', '1'], box.root, env)
    const out = join(box.root, 'out.jsonl')
    const followed = await runCli(['batch', file, '--out', out], { cwd: box.root, env, timeoutMs: 60_000 })
    expect(followed.code).toBe(0)
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ id: 'orphan', status: 'completed', result: 'picked up again', attempts: 1 })
    expect(rescuer.log()).toContain('task orphans/orphan: its worker died before starting it; retrying the task.')
  })
})
