import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox, spawnCli } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

interface Result {
  id: string
  status: string
  session_id: string
  result: string
  usage: { input_tokens: number; output_tokens: number }
  cost_usd: number
  duration_ms: number
  attempts: number
  error?: string
}

function results(path: string): Result[] {
  return readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Result)
}

function tasksFile(root: string, tasks: unknown[]): string {
  const file = join(root, 'tasks.jsonl')
  writeFileSync(file, tasks.map((task) => (typeof task === 'string' ? task : JSON.stringify(task))).join('\n') + '\n')
  return file
}

describe('rein batch with the local store', () => {
  it('runs every task in its own copy of its directory and writes one result line per task', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'notes.txt'), 'original\n')
    mock = await startMockModel({
      script: [
        { match: 'task one', toolCalls: [{ name: 'bash', arguments: { command: 'echo changed-by-one > notes.txt' } }] },
        { match: 'task one', text: 'one is done' },
        { match: 'task two', text: 'two is done' },
        { match: 'task three', text: 'three is done' },
      ],
    })
    const file = tasksFile(box.root, [
      { id: 'one', cwd: 'project', prompt: 'task one', permission_mode: 'bypass' },
      { id: 'two', cwd: 'project', prompt: 'task two', user_id: 'tenant-a' },
      { id: 'three', cwd: box.cwd, prompt: 'task three', max_turns: 3 },
    ])
    const out = join(box.root, 'out.jsonl')
    const run = await runCli(['batch', file, '--concurrency', '2', '--out', out], { cwd: box.root, env: cliEnv({ url: mock.url, home: box.home }), timeoutMs: 60_000 })
    expect(run.stderr).toMatch(/3\/3 · done 3 · failed 0 · running 0 · \d+ tokens · \$\d+\.\d{4} · ETA 0:00\n/)
    expect(run.stderr).toContain(`rein: batch finished: 3 completed, 0 failed; results in ${out}.\n`)
    expect(run.code).toBe(0)
    const lines = results(out)
    expect(lines.map((r) => r.id).sort()).toEqual(['one', 'three', 'two'])
    const one = lines.find((r) => r.id === 'one')!
    expect(one).toMatchObject({ status: 'completed', result: 'one is done', attempts: 1 })
    expect(one.usage.input_tokens).toBeGreaterThan(0)
    expect(readFileSync(join(box.cwd, 'notes.txt'), 'utf8')).toBe('original\n')
    expect(readFileSync(join(`${out}.work`, 'workspaces', 'one', 'notes.txt'), 'utf8')).toBe('changed-by-one\n')
    expect(readFileSync(join(`${out}.work`, 'workspaces', 'two', 'notes.txt'), 'utf8')).toBe('original\n')
    // A task's user_id is DeepSeek's user_id for its requests only (the others get the per-user default).
    const sent = (text: string): unknown[] =>
      mock!.requests.filter((r) => JSON.stringify(r.body).includes(text)).map((r) => (r.body as { user_id?: unknown }).user_id)
    expect(sent('task two')).toEqual(['tenant-a'])
    expect(sent('task three')).not.toContain('tenant-a')
    const verify = await runCli(['sessions', 'verify', one.session_id], { cwd: box.root, env: cliEnv({ home: box.home }) })
    expect(verify.stdout).toMatch(/no problems/)
  })

  it('refuses a tasks file with hostile lines in one sentence per line and runs nothing', async () => {
    const box = sandbox()
    const file = tasksFile(box.root, [
      '{"id": "ok", "cwd": "project", "prompt": "fine"}',
      '{not json',
      '{"id": "../escape", "cwd": "project", "prompt": "x"}',
      '{"id": "nocwd", "prompt": "x"}',
      '{"id": "both", "cwd": "project", "repo": "/tmp", "prompt": "x"}',
      '{"id": "ghost", "cwd": "../../no/such/dir", "prompt": "x"}',
      '{"id": "ok", "cwd": "project", "prompt": "again"}',
      '{"id": "empty", "cwd": "project", "prompt": "   "}',
      '{"id": "extra", "cwd": "project", "prompt": "x", "trust": true}',
      '{"id": "dash", "repo": "--upload-pack=evil", "prompt": "x"}',
      '[1, 2]',
      '{"id": "tenant", "cwd": "project", "prompt": "x", "user_id": "not a valid id!"}',
    ])
    const r = await runCli(['batch', file], { cwd: box.root, env: cliEnv({ home: box.home }) })
    expect(r.code).toBe(2)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines).toEqual([
      `rein: ${file} line 2: is not valid JSON; write one task object per line.`,
      expect.stringMatching(new RegExp(`^rein: ${file} line 3: "id" must be 1–100 letters, digits, dots, dashes or underscores`)),
      `rein: ${file} line 4: needs exactly one of "cwd" (a directory) and "repo" (a git repository).`,
      `rein: ${file} line 5: needs exactly one of "cwd" (a directory) and "repo" (a git repository).`,
      expect.stringMatching(new RegExp(`^rein: ${file} line 6: "cwd" /.*no/such/dir is not a directory\\.$`)),
      `rein: ${file} line 7: the id "ok" is already used on line 1; give every task its own id.`,
      `rein: ${file} line 8: "prompt" must not be empty.`,
      `rein: ${file} line 9: has the unknown field "trust"; see docs/fleet.md for the task fields.`,
      `rein: ${file} line 10: "repo" must not start with a dash.`,
      `rein: ${file} line 11: is not a JSON object; write one task object per line.`,
      `rein: ${file} line 12: "user_id" must be 1 to 512 letters, digits, '_' or '-'.`,
      'rein: nothing was run; fix 11 lines and run the batch again.',
    ])
    expect(existsSync(join(box.root, 'tasks.results.jsonl'))).toBe(false)
  })

  it('runs only the tasks missing from the results file when run again', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ match: 'second', text: 'second done' }] })
    const file = tasksFile(box.root, [
      { id: 'first', cwd: 'project', prompt: 'first' },
      { id: 'second', cwd: 'project', prompt: 'second' },
    ])
    const out = join(box.root, 'tasks.results.jsonl')
    writeFileSync(out, `${JSON.stringify({ id: 'first', status: 'completed', session_id: null, result: 'earlier', usage: { input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0, reasoning_tokens: 0 }, cost_usd: 0, duration_ms: 1, attempts: 1 })}\n`)
    const r = await runCli(['batch', file], { cwd: box.root, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.stderr).toContain('batch finished: 1 completed, 0 failed, 1 already in the results file;')
    expect(mock.requests).toHaveLength(1)
    expect(results(out).map((line) => line.id)).toEqual(['first', 'second'])
  })

  it('an interrupted batch stops its running task, and the re-run resumes that task\'s session instead of starting over', async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [
        { match: 'slow task', delayMs: 60_000, text: 'never seen' },
        { match: 'was interrupted', text: 'finished after the resume' },
      ],
    })
    const file = tasksFile(box.root, [{ id: 'slow', cwd: 'project', prompt: 'slow task' }])
    const out = join(box.root, 'out.jsonl')
    const env = cliEnv({ url: mock.url, home: box.home })
    const child = spawnCli(['batch', file, '--out', out], { cwd: box.root, env })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    while (mock.requests.length === 0) await new Promise((r) => setTimeout(r, 50))
    child.kill('SIGINT')
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code).toBe(130)
    expect(stderr).toContain('rein: batch interrupted: 0 completed, 0 failed, 1 stopped; run the same command again to finish the rest.\n')
    expect(existsSync(out)).toBe(false)

    const again = await runCli(['batch', file, '--out', out], { cwd: box.root, env })
    expect(again.code).toBe(0)
    const [result] = results(out)
    expect(result).toMatchObject({ id: 'slow', status: 'completed', result: 'finished after the resume', attempts: 2 })
    const shown = await runCli(['sessions', 'export', result.session_id], { cwd: box.root, env })
    const prompts = shown.stdout.split('\n').filter((line) => line.includes('"type":"user/message"'))
    expect(prompts).toHaveLength(2)
    expect(prompts[0]).toContain('slow task')
    expect(shown.stdout).toContain('"reason":"interrupted"')
  })

  it('stops a task past its timeout and reports it as timed out', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ match: 'hang', delayMs: 60_000, text: 'late' }] })
    const file = tasksFile(box.root, [{ id: 'hang', cwd: 'project', prompt: 'hang', timeout_s: 1 }])
    const out = join(box.root, 'out.jsonl')
    const r = await runCli(['batch', file, '--out', out], { cwd: box.root, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(1)
    expect(results(out)[0]).toMatchObject({ id: 'hang', status: 'timeout', error: 'the task ran past its timeout of 1 s and was stopped.' })
  })

  it('reports a failing setup command as the task\'s error without running the agent', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [] })
    const file = tasksFile(box.root, [{ id: 'bad-setup', cwd: 'project', prompt: 'x', setup: 'echo missing tool >&2; exit 3' }])
    const out = join(box.root, 'out.jsonl')
    const r = await runCli(['batch', file, '--out', out], { cwd: box.root, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(1)
    expect(results(out)[0]).toMatchObject({ status: 'failed', error: 'the setup command of task bad-setup exited with code 3: missing tool.' })
    expect(mock.requests).toHaveLength(0)
  })

  it('clones a repository at the named commit for a repo task', async () => {
    const box = sandbox()
    const repo = join(box.root, 'repo')
    mkdirSync(repo)
    const git = (...args: string[]): string => {
      return execFileSync('git', ['-C', repo, '-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { encoding: 'utf8' }).trim()
    }
    git('init', '-q')
    writeFileSync(join(repo, 'version.txt'), 'one\n')
    git('add', '.')
    git('commit', '-qm', 'one')
    const first = git('rev-parse', 'HEAD')
    writeFileSync(join(repo, 'version.txt'), 'two\n')
    git('commit', '-qam', 'two')
    mock = await startMockModel({ script: [{ text: 'looked' }] })
    const file = tasksFile(box.root, [{ id: 'old', repo: 'repo', commit: first, prompt: 'look' }])
    const out = join(box.root, 'out.jsonl')
    const r = await runCli(['batch', file, '--out', out], { cwd: box.root, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(0)
    expect(readFileSync(join(`${out}.work`, 'workspaces', 'old', 'version.txt'), 'utf8')).toBe('one\n')
  })
})
