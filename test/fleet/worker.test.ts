import { spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { killWorkers, startWorker, until } from './workers.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { freshDatabase, onDatabase, postgresUrl } from '../support/postgres-db.js'
import { DEAD_QUEUE, openQueue, QUEUE } from '../../src/fleet/queue.js'

let mock: MockModel | undefined
afterEach(async () => {
  await killWorkers()
  await mock?.close()
  mock = undefined
})

/** The session's events, from `rein sessions export` (the header dropped). */
async function sessionEvents(id: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const exported = await runCli(['sessions', 'export', id], { cwd, env })
  return exported.stdout.trim().split('\n').slice(1).map((line) => JSON.parse(line))
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => child.on('close', (code) => resolve(code)))
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
    const name = /^rein: batch (nightly-[0-9a-f]{8}):/.exec(queued.stderr)?.[1]
    expect(queued.stderr).toBe(`rein: batch ${name}: 5 of 5 tasks queued for rein worker.\nrein: follow it with \`rein batch status --name ${name}\`.\n`)
    const status = await runCli(['batch', 'status'], { cwd: box.root, env })
    expect(status.stdout).toBe(`batch ${name}: 5 tasks · queued 5 · running 0 · completed 0 · failed 0 · retried 0\nworkers: 0 live\n`)
    const requeued = await runCli(['batch', file, '--detach'], { cwd: box.root, env })
    expect(requeued.stderr).toContain(`rein: batch ${name}: 5 of 5 tasks queued`)

    const worker = startWorker(['--concurrency', '2', '--log-format', 'json'], box.root, env)
    const out = join(box.root, 'out.jsonl')
    const followed = await runCli(['batch', file, '--out', out], { cwd: box.root, env, timeoutMs: 60_000 })
    expect(followed.stderr).toContain(`rein: batch ${name} finished: 5 completed, 0 failed; results in ${out}.\n`)
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
    // --log-format json: every line one object; task lines name their batch and task.
    const lines = worker.log().trim().split('\n').map((line) => JSON.parse(line) as Record<string, string>)
    expect(lines.find((l) => l.msg.endsWith('is taking tasks (2 at a time).'))).toMatchObject({ level: 'info', worker: expect.any(String) })
    expect(lines.filter((l) => l.msg.endsWith(': completed.')).map((l) => [l.batch, l.task]).sort()).toEqual(['t0', 't1', 't2', 't3', 't4'].map((t) => [name, t]))
    expect(lines.every((l) => !Number.isNaN(Date.parse(l.time)))).toBe(true)
    const after = await runCli(['batch', 'status', '--name', name!], { cwd: box.root, env })
    expect(after.stdout).toMatch(/^batch nightly-[0-9a-f]{8}: 5 tasks · queued 0 · running 0 · completed 5 · failed 0 · retried 0\nworkers: 0 live\n$/)
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
    expect(rescuer.log()).toMatch(/task one-[0-9a-f]{8}\/long: worker .* stopped answering; retrying the task\./)

    const exported = await runCli(['sessions', 'export', result.session_id], { cwd: box.root, env })
    const events = exported.stdout.trim().split('\n').slice(1).map((line) => JSON.parse(line))
    expect(events.filter((e) => e.type === 'user/message')).toHaveLength(2)
    expect(events.filter((e) => e.type === 'turn/end').map((e) => e.data.reason)).toEqual(['interrupted', 'completed'])
    const rows = await onDatabase(url, (db) => db.query('SELECT count(*)::int AS n FROM rein_sessions'))
    expect(rows.rows[0].n).toBe(1)
  })

  it('a worker SIGSTOPped past its stale time loses its task; its running child still completes it once, and the worker, continued, stays up and drains', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({ script: [{ match: 'frozen task', delayMs: 5000, text: 'finished by the first child' }] })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url, REIN_WORKER_STALE_MS: '1500', REIN_QUEUE_MAINTENANCE_S: '1' } })
    const file = join(box.root, 'frozen.jsonl')
    writeFileSync(file, JSON.stringify({ id: 'frozen', cwd: 'project', prompt: 'frozen task' }))
    await runCli(['batch', file, '--detach'], { cwd: box.root, env })

    const frozen = startWorker(['--concurrency', '1', '--workdir', join(box.root, 'machine-a')], box.root, env)
    await until('the first worker sent the model request', () => mock!.requests.length === 1)
    // Only the worker stops (a paused VM, a debugger): its `rein -p` child runs on and holds the session's lease.
    process.kill(frozen.child.pid!, 'SIGSTOP')
    const rescuer = startWorker(['--concurrency', '1', '--workdir', join(box.root, 'machine-b')], box.root, env)
    const out = join(box.root, 'out.jsonl')
    const followed = await runCli(['batch', file, '--out', out], { cwd: box.root, env, timeoutMs: 60_000 })
    expect(followed.code).toBe(0)
    const [result] = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
    expect(result).toMatchObject({ id: 'frozen', status: 'completed', result: 'finished by the first child' })
    expect(rescuer.log()).toMatch(/task frozen-[0-9a-f]{8}\/frozen: worker .* stopped answering; retrying the task\./)

    process.kill(frozen.child.pid!, 'SIGCONT')
    await new Promise((r) => setTimeout(r, 2000))
    expect(frozen.child.exitCode).toBe(null)
    frozen.child.kill('SIGTERM')
    expect(await exited(frozen.child)).toBe(0)
    // One model call, one completed turn: neither the rescuer nor the continued worker ran the task again.
    expect(mock.requests).toHaveLength(1)
    const events = await sessionEvents(result.session_id, box.root, env)
    expect(events.filter((e) => e.type === 'turn/end').map((e) => e.data.reason)).toEqual(['completed'])
  })

  it("a task whose rein -p is killed by someone else mid-turn (the OOM killer) is resumed by its worker and completes, not failed", async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({
      script: [
        { match: 'victim task', delayMs: 120_000, text: 'never arrives' },
        { match: 'was interrupted', text: 'finished after the kill' },
      ],
    })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url } })
    const file = join(box.root, 'oom.jsonl')
    writeFileSync(file, JSON.stringify({ id: 'victim', cwd: 'project', prompt: 'victim task' }))
    await runCli(['batch', file, '--detach'], { cwd: box.root, env })
    const worker = startWorker(['--concurrency', '1'], box.root, env)
    await until('the task sent its model request', () => mock!.requests.length === 1)
    const ps = spawnSync('ps', ['-o', 'pid=,args=', '-g', String(worker.child.pid)], { encoding: 'utf8' }).stdout
    const child = ps.split('\n').find((line) => line.includes(' -p ') && line.includes('--session-id'))
    process.kill(Number(child!.trim().split(/\s+/)[0]), 'SIGKILL')

    const out = join(box.root, 'out.jsonl')
    const followed = await runCli(['batch', file, '--out', out], { cwd: box.root, env, timeoutMs: 60_000 })
    expect(followed.code).toBe(0)
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ id: 'victim', status: 'completed', result: 'finished after the kill', attempts: 1 })
    expect(worker.log()).toMatch(/task oom-[0-9a-f]{8}\/victim: its process stopped before its turn ended \(its rein process was killed by SIGKILL\); resuming it/)
  })

  it('a task whose rein -p freezes (SIGSTOP) is noticed when its session lease expires, killed and resumed, long before any timeout', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({
      script: [
        { match: 'frozen child', delayMs: 120_000, text: 'never arrives' },
        { match: 'was interrupted', text: 'finished after the freeze' },
      ],
    })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url, REIN_LEASE_STALE_MS: '1500' } })
    const file = join(box.root, 'freeze.jsonl')
    writeFileSync(file, JSON.stringify({ id: 'ice', cwd: 'project', prompt: 'frozen child', timeout_s: 3600 }))
    await runCli(['batch', file, '--detach'], { cwd: box.root, env })
    const worker = startWorker(['--concurrency', '1'], box.root, env)
    await until('the task sent its model request', () => mock!.requests.length === 1)
    const ps = spawnSync('ps', ['-o', 'pid=,args=', '-g', String(worker.child.pid)], { encoding: 'utf8' }).stdout
    const child = ps.split('\n').find((line) => line.includes(' -p ') && line.includes('--session-id'))
    process.kill(Number(child!.trim().split(/\s+/)[0]), 'SIGSTOP')

    const out = join(box.root, 'out.jsonl')
    const followed = await runCli(['batch', file, '--out', out], { cwd: box.root, env, timeoutMs: 60_000 })
    expect(followed.code).toBe(0)
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ id: 'ice', status: 'completed', result: 'finished after the freeze', attempts: 1 })
    expect(worker.log()).toMatch(/task freeze-[0-9a-f]{8}\/ice: its process stopped before its turn ended \(its rein process stopped answering \(its session lease expired [\d.]+ s ago\), so it was killed\); resuming it/)
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
    expect(rescuer.log()).toMatch(/task orphans-[0-9a-f]{8}\/orphan: its worker died before starting it; retrying the task\./)
  })

  it("a worker task reads the files of its workspace, which by default lies outside Rein's home", async () => {
    const box = sandbox()
    const url = await freshDatabase()
    writeFileSync(join(box.cwd, 'notes.txt'), 'the notes of the project\n')
    mock = await startMockModel({
      script: [
        { match: 'read the notes', toolCalls: [{ name: 'bash', arguments: { command: 'cat notes.txt' } }] },
        { match: 'read the notes', text: 'read them' },
      ],
    })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url } })
    const file = join(box.root, 'read.jsonl')
    writeFileSync(file, JSON.stringify({ id: 'reader', cwd: 'project', prompt: 'read the notes', permission_mode: 'bypass' }))
    startWorker(['--concurrency', '1', '--max-permission-mode', 'bypass'], box.root, env)
    const out = join(box.root, 'out.jsonl')
    const followed = await runCli(['batch', file, '--out', out], { cwd: box.root, env, timeoutMs: 60_000 })
    expect(followed.code).toBe(0)
    const result = JSON.parse(readFileSync(out, 'utf8'))
    const events = await sessionEvents(result.session_id, box.root, env)
    const output = JSON.stringify(events.filter((e) => e.type === 'tool/result'))
    expect(output).toContain('the notes of the project')
    expect(output).not.toMatch(/may not be read|denied|refused/i)

    const refused = await runCli(['worker', '--workdir', join(box.home, 'fleet')], { cwd: box.root, env })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toBe(`rein: --workdir ${join(box.home, 'fleet')} is inside Rein's home (${box.home}), whose files no task may read; choose a folder outside it.\n`)
  })

  it('a tasks file run again with changed prompts is a new batch that runs the new prompts, and a --name holding other tasks is refused', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({ script: [{ match: 'yesterday', text: "yesterday's answer" }, { match: 'today', text: "today's answer" }] })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url } })
    const file = join(box.root, 'nightly.jsonl')
    startWorker(['--concurrency', '1'], box.root, env)
    const out = join(box.root, 'out.jsonl')
    writeFileSync(file, JSON.stringify({ id: 'n1', cwd: 'project', prompt: 'yesterday' }))
    expect((await runCli(['batch', file, '--out', out, '--name', 'nightly'], { cwd: box.root, env, timeoutMs: 60_000 })).code).toBe(0)

    writeFileSync(file, JSON.stringify({ id: 'n1', cwd: 'project', prompt: 'today' }))
    const reused = await runCli(['batch', file, '--out', out, '--name', 'nightly'], { cwd: box.root, env })
    expect(reused.code).toBe(2)
    expect(reused.stderr).toBe(
      'rein: the batch nightly in this store holds other tasks (task n1 differs); give this run another --name, or leave --name out to name the batch by its tasks.\n',
    )
    const today = await runCli(['batch', file, '--out', join(box.root, 'today.jsonl')], { cwd: box.root, env, timeoutMs: 60_000 })
    expect(today.stderr).toMatch(/^rein: batch nightly-[0-9a-f]{8}: 1 of 1 tasks queued/)
    expect(today.code).toBe(0)
    expect(JSON.parse(readFileSync(join(box.root, 'today.jsonl'), 'utf8'))).toMatchObject({ id: 'n1', status: 'completed', result: "today's answer" })
    expect(mock.requests).toHaveLength(2)
  })

  it('a task whose worker died while its rein -p went on to complete is recorded done from the log, with no second model call', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({ script: [{ match: 'slow task', delayMs: 3000, text: 'finished by the orphan' }, { text: 'must not be asked' }] })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url, REIN_WORKER_STALE_MS: '1000', REIN_QUEUE_MAINTENANCE_S: '1' } })
    const file = join(box.root, 'orphaned.jsonl')
    writeFileSync(file, JSON.stringify({ id: 'slow', cwd: 'project', prompt: 'slow task' }))
    await runCli(['batch', file, '--detach'], { cwd: box.root, env })
    const doomed = startWorker(['--concurrency', '1', '--workdir', join(box.root, 'machine-a')], box.root, env)
    await until('the first worker sent the model request', () => mock!.requests.length === 1)
    // Only the worker dies; its task's `rein -p` child keeps running and completes the turn.
    doomed.child.kill('SIGKILL')
    await exited(doomed.child)

    const rescuer = startWorker(['--concurrency', '1', '--workdir', join(box.root, 'machine-b')], box.root, env)
    const out = join(box.root, 'out.jsonl')
    const followed = await runCli(['batch', file, '--out', out], { cwd: box.root, env, timeoutMs: 60_000 })
    expect(followed.code).toBe(0)
    const result = JSON.parse(readFileSync(out, 'utf8'))
    expect(result).toMatchObject({ id: 'slow', status: 'completed', result: 'finished by the orphan', attempts: 2 })
    expect(rescuer.log()).toMatch(/task orphaned-[0-9a-f]{8}\/slow: already completed in its session; not run again\./)
    expect(mock.requests).toHaveLength(1)
    const events = await sessionEvents(result.session_id, box.root, env)
    expect(events.filter((e) => e.type === 'turn/end').map((e) => e.data.reason)).toEqual(['completed'])
  })

  it('SIGTERM drains a worker (its running task goes back to the queue, exit 0), and a second signal stops it at once', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({ script: [{ match: /long|interrupted/, delayMs: 120_000, text: 'never arrives', repeat: true }] })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url } })
    const file = join(box.root, 'drain.jsonl')
    writeFileSync(file, JSON.stringify({ id: 'long', cwd: 'project', prompt: 'long task' }))
    await runCli(['batch', file, '--detach'], { cwd: box.root, env })

    const first = startWorker(['--concurrency', '1'], box.root, env)
    await until('the first worker sent the model request', () => mock!.requests.length === 1)
    first.child.kill('SIGTERM')
    expect(await exited(first.child)).toBe(0)
    expect(first.log()).toMatch(/task drain-[0-9a-f]{8}\/long: stopped; handed back to the queue\./)
    const status = await runCli(['batch', 'status'], { cwd: box.root, env })
    expect(status.stdout).toMatch(/1 tasks · queued 1 · running 0 · completed 0 · failed 0 · retried 0\n/)

    const second = startWorker(['--concurrency', '1'], box.root, env)
    await until('the second worker sent the model request', () => mock!.requests.length === 2)
    // Two different signals, as two of one kind sent back to back may arrive as one.
    second.child.kill('SIGTERM')
    second.child.kill('SIGINT')
    expect(await exited(second.child)).toBe(130)
    expect(second.log()).toContain('rein: worker stopped at once.\n')
  })

  it('a task whose cwd does not exist on the worker is handed back, and after its retries fails saying so', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({ script: [{ text: 'must not be asked' }] })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url } })
    mkdirSync(join(box.root, 'here-only'))
    const file = join(box.root, 'paths.jsonl')
    writeFileSync(file, JSON.stringify({ id: 'p1', cwd: 'here-only', prompt: 'anything' }))
    await runCli(['batch', file, '--detach'], { cwd: box.root, env })
    // The worker's machine lacks the folder the queuing machine had.
    renameSync(join(box.root, 'here-only'), join(box.root, 'elsewhere'))
    const worker = startWorker(['--concurrency', '1'], box.root, env)
    const final = async (): Promise<{ status: string; result: { error: string; attempts: number } | null } | undefined> =>
      (await onDatabase(url, (db) => db.query("SELECT status, result FROM rein_batch_tasks WHERE task_id = 'p1'"))).rows[0]
    await until('the task is final', async () => (await final())?.status === 'failed')
    const row = await final()
    const path = join(box.root, 'here-only')
    expect(row!.result).toMatchObject({ attempts: 4 })
    expect(row!.result!.error).toMatch(new RegExp(`^the task was stopped 4 times \\(last: its cwd ${path} does not exist on worker [^)]+\\) and is not retried again`))
    expect(worker.log()).toContain(`its cwd ${path} does not exist on worker`)
    expect(mock.requests).toHaveLength(0)
    // pg-boss backed off between the attempts and, its retries spent, moved the job to the dead-letter queue.
    const boss = await openQueue(url)
    try {
      await until('the job is dead-lettered', async () => (await boss.getQueueSize(DEAD_QUEUE)) === 1, 10_000)
    } finally {
      await boss.stop({ graceful: false, wait: true })
    }
  })

  it("a worker refuses, each in one sentence of its result, a task asking for bypass, a setup command, allow rules or a cwd outside its tasks file's folder", async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({ script: [{ match: 'fine', text: 'the modest task ran' }] })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url } })
    mkdirSync(join(box.root, 'tasks', 'inside'), { recursive: true })
    const file = join(box.root, 'tasks', 'policy.jsonl')
    writeFileSync(
      file,
      [
        { id: 'bypass', cwd: 'inside', prompt: 'x', permission_mode: 'bypass' },
        { id: 'setup', cwd: 'inside', prompt: 'x', setup: 'true' },
        { id: 'rules', cwd: 'inside', prompt: 'x', allow: ['Bash(rm -rf /)'] },
        { id: 'outside', cwd: '../project', prompt: 'x' },
        { id: 'modest', cwd: 'inside', prompt: 'fine', permission_mode: 'accept-edits' },
      ]
        .map((task) => JSON.stringify(task))
        .join('\n'),
    )
    const worker = startWorker(['--concurrency', '1'], box.root, env)
    const out = join(box.root, 'out.jsonl')
    const followed = await runCli(['batch', file, '--out', out], { cwd: box.root, env, timeoutMs: 60_000 })
    expect(followed.code).toBe(1)
    const results = new Map(readFileSync(out, 'utf8').trim().split('\n').map((line) => [JSON.parse(line).id, JSON.parse(line)]))
    const me = /worker (\S+) is taking tasks/.exec(worker.log())![1]
    const refusal = (id: string, what: string, flag: string): string =>
      `task ${id} asks for ${what}, which worker ${me} does not allow (start it with ${flag} to allow it); it was not run.`
    expect(results.get('bypass').error).toBe(refusal('bypass', 'permission mode bypass', '--max-permission-mode bypass'))
    expect(results.get('setup').error).toBe(refusal('setup', 'a setup command', '--allow-setup'))
    expect(results.get('rules').error).toBe(refusal('rules', 'the allow rules Bash(rm -rf /)', '--allow-task-rules'))
    expect(results.get('outside').error).toBe(
      refusal('outside', `the cwd ${box.cwd}, outside its tasks file's folder ${join(box.root, 'tasks')}`, '--allow-cwd-anywhere'),
    )
    expect(results.get('modest')).toMatchObject({ status: 'completed', result: 'the modest task ran' })
    expect(mock.requests).toHaveLength(1)
  })

  it('a worker with --metrics-port serves Prometheus metrics of its tasks and a health endpoint', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({ script: [{ match: 'measured', text: 'measured' }] })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url } })
    const file = join(box.root, 'metered.jsonl')
    writeFileSync(file, JSON.stringify({ id: 'm1', cwd: 'project', prompt: 'measured' }))
    const worker = startWorker(['--concurrency', '1', '--metrics-port', '0'], box.root, env)
    await until('the worker serves metrics', () => /metrics at (\S+)\/metrics/.test(worker.log()))
    const base = /metrics at (\S+)\/metrics/.exec(worker.log())![1]
    expect((await runCli(['batch', file, '--out', join(box.root, 'out.jsonl')], { cwd: box.root, env, timeoutMs: 60_000 })).code).toBe(0)
    const text = await (await fetch(`${base}/metrics`)).text()
    expect(text).toContain('rein_tasks_started_total 1\n')
    expect(text).toContain('rein_tasks_finished_total{status="completed"} 1\n')
    expect(text).toMatch(/rein_task_tokens_total\{kind="input"\} [1-9]\d*\n/)
    expect(text).toContain('rein_tasks_running 0\n')
    const health = await fetch(`${base}/healthz`)
    expect([health.status, await health.text()]).toEqual([200, 'ok\n'])
  })
})
