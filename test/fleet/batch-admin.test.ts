import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { killWorkers, startWorker, until } from './workers.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { freshDatabase, postgresUrl } from '../support/postgres-db.js'

let mock: MockModel | undefined
afterEach(async () => {
  await killWorkers()
  await mock?.close()
  mock = undefined
})


describe.runIf(postgresUrl)('rein batch cancel, results, retry --failed and prune', () => {
  it('cancels a batch mid-run, prints its results from the store, runs the cancelled tasks again with retry --failed, and prunes it', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({
      script: [
        { match: 'first', delayMs: 120_000, text: 'never arrives' },
        { match: /first|second|third|interrupted/, text: 'done on retry', repeat: true },
      ],
    })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url } })
    const file = join(box.root, 'admin.jsonl')
    writeFileSync(file, ['first', 'second', 'third'].map((prompt, i) => JSON.stringify({ id: `a${i}`, cwd: 'project', prompt })).join('\n'))
    const queued = await runCli(['batch', file, '--detach'], { cwd: box.root, env })
    const name = /batch (admin-[0-9a-f]{8}):/.exec(queued.stderr)![1]
    const { log } = startWorker(['--concurrency', '1'], box.root, env)
    await until('the first task asked the model', () => mock!.requests.length === 1)

    const cancelled = await runCli(['batch', 'cancel', name], { cwd: box.root, env })
    expect(cancelled.stderr).toBe(`rein: Batch ${name}: 3 unfinished tasks cancelled; finished ones keep their results.\n`)
    await until('the worker stopped the running task', () => log().includes(`task ${name}/a0: cancelled or taken over elsewhere; stopped here.`))
    const results = await runCli(['batch', 'results', name], { cwd: box.root, env })
    const lines = results.stdout.trim().split('\n').map((line) => JSON.parse(line))
    expect(lines.map((r) => [r.id, r.status])).toEqual([['a0', 'cancelled'], ['a1', 'cancelled'], ['a2', 'cancelled']])
    expect(lines[0].error).toBe('the batch was cancelled (rein batch cancel) before the task finished.')
    expect(mock.requests).toHaveLength(1)

    const retried = await runCli(['batch', 'retry', name, '--failed'], { cwd: box.root, env })
    expect(retried.stderr).toBe(`rein: Batch ${name}: 3 tasks queued again.\n`)
    const followed = await runCli(['batch', file, '--out', join(box.root, 'out.jsonl')], { cwd: box.root, env, timeoutMs: 60_000 })
    expect(followed.code).toBe(0)
    const after = (await runCli(['batch', 'results', name], { cwd: box.root, env })).stdout.trim().split('\n').map((line) => JSON.parse(line))
    expect(after.map((r) => [r.id, r.status, r.result])).toEqual([
      ['a0', 'completed', 'done on retry'],
      ['a1', 'completed', 'done on retry'],
      ['a2', 'completed', 'done on retry'],
    ])

    const kept = await runCli(['batch', 'prune'], { cwd: box.root, env })
    expect(kept.stderr).toBe('rein: Pruned 0 batches (0 tasks) finished more than 30 days ago; their sessions stay in the store.\n')
    const pruned = await runCli(['batch', 'prune', '--older-than', '0'], { cwd: box.root, env })
    expect(pruned.stderr).toBe('rein: Pruned 1 batches (3 tasks) finished more than 0 days ago; their sessions stay in the store.\n')
    const missing = await runCli(['batch', 'results', name], { cwd: box.root, env })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe(`rein: No batch named ${name} in this store; \`rein batch status\` lists them.\n`)
    const sessions = await runCli(['sessions', 'list', '--all'], { cwd: box.root, env })
    expect(sessions.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(4)
  })
})
