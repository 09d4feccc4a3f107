import { afterEach, describe, expect, it } from 'vitest'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SessionEvent } from '../../src/session/events.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox, spawnCli } from '../support/cli.js'
import { prefixViolations } from '../support/agent-harness.js'
import { eventsOf, firstOf } from '../support/events.js'

/** Every session log under a REIN_HOME, parsed. */
function logs(home: string): { header: { id: string }; events: SessionEvent[] }[] {
  const root = join(home, 'sessions')
  const out: { header: { id: string }; events: SessionEvent[] }[] = []
  for (const dir of readdirSync(root)) {
    for (const file of readdirSync(join(root, dir)).filter((f) => f.endsWith('.jsonl'))) {
      const lines = readFileSync(join(root, dir, file), 'utf8').split('\n').filter(Boolean)
      out.push({ header: JSON.parse(lines[0]), events: lines.slice(1).map((l) => JSON.parse(l)) })
    }
  }
  return out
}

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

describe('rein -p (one-shot mode)', () => {
  it('runs a multi-step tool session and streams every committed event and delta as JSON lines with --output-format events', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'notes.txt'), 'alpha\nbeta\n')
    mock = await startMockModel({
      script: [
        { reasoning: 'Read the notes first.', toolCalls: [{ name: 'read', arguments: { file_path: join(box.cwd, 'notes.txt') } }] },
        { reasoning: 'Now count.', toolCalls: [{ name: 'grep', arguments: { pattern: 'beta', path: box.cwd } }] },
        { text: 'The notes have two lines; beta is on line 2.' },
      ],
    })
    const r = await runCli(['-p', 'summarize notes.txt', '--output-format', 'events'], {
      cwd: box.cwd,
      env: cliEnv({ url: mock.url, home: box.home }),
    })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
    const result = lines.at(-1)
    expect(result).toMatchObject({ type: 'result', is_error: false, stop_reason: 'end_turn', result: 'The notes have two lines; beta is on line 2.', num_turns: 3 })
    expect(result.usage.input_tokens).toBeGreaterThan(0)
    expect(lines.some((l) => l.type === 'reasoning-delta')).toBe(true)
    const committed = lines.filter((l) => l.type === 'event').map((l) => l.event.type)
    expect(committed.filter((t: string) => t === 'tool/result')).toHaveLength(2)

    const [log] = logs(box.home)
    expect(log.header.id).toBe(result.session_id)
    expect(log.events.map((e) => e.type)).toEqual(expect.arrayContaining(['turn/start', 'request/header', 'turn/end']))
    const bodies = mock.requests.map((q) => q.body as { messages: { role: string; reasoning_content?: string }[] })
    expect(bodies).toHaveLength(3)
    expect(prefixViolations(bodies)).toEqual([])
    const assistants = bodies[2].messages.filter((m) => m.role === 'assistant')
    expect(assistants.map((m) => m.reasoning_content)).toEqual(['Read the notes first.', 'Now count.'])
  })

  it('prints the final text with --output-format text and a summary object with json', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'Hello there.' }, { text: 'Second answer.' }] })
    const env = cliEnv({ url: mock.url, home: box.home })
    const text = await runCli(['-p', 'hi'], { cwd: box.cwd, env })
    expect(text).toMatchObject({ code: 0, stdout: 'Hello there.\n' })
    const json = await runCli(['-p', 'again', '--output-format', 'json', '--continue'], { cwd: box.cwd, env })
    const result = JSON.parse(json.stdout)
    expect(result).toMatchObject({ result: 'Second answer.', stop_reason: 'end_turn', num_turns: 1 })
    expect(typeof result.total_cost_usd).toBe('number')
    expect(logs(box.home)).toHaveLength(1)
  })

  it('appends piped stdin to the prompt', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'ok' }] })
    await runCli(['-p', 'explain this log:'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }), input: 'ERROR at line 3\n' })
    const body = mock.requests[0].body as { messages: { role: string; content: string }[] }
    expect(body.messages.find((m) => m.role === 'user')?.content).toBe('explain this log:\n\nERROR at line 3\n')
  })

  it('exits 2 with one sentence when no API key is configured', async () => {
    const box = sandbox()
    const r = await runCli(['-p', 'hi'], { cwd: box.cwd, env: cliEnv({ home: box.home, key: null }) })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^rein: No DeepSeek API key is configured: set DEEPSEEK_API_KEY/)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })

  it('uses a key stored in $REIN_HOME/credentials when the environment has none (without one it exits 2)', async () => {
    const box = sandbox()
    writeFileSync(join(box.home, 'credentials'), 'DEEPSEEK_API_KEY=sk-from-file\n', { mode: 0o600 })
    mock = await startMockModel({ script: [{ text: 'keyed' }] })
    const r = await runCli(['-p', 'hi'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home, key: null }) })
    expect(r).toMatchObject({ code: 0, stdout: 'keyed\n' })
  })

  it('exits 2 on bad usage', async () => {
    const box = sandbox()
    const r = await runCli(['-p', 'hi', '--effort', 'extreme'], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--effort/)
  })

  it('exits 1 with a clear message when DeepSeek rejects the key (401)', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ error: { status: 401, body: { error: { message: 'Authentication Fails' } } } }] })
    const r = await runCli(['-p', 'hi'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/DeepSeek rejected the API key \(401\)\. Check DEEPSEEK_API_KEY/)
  })

  it('a 429 then success is retried, logged as llm/retry, and exits 0', async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [{ error: { status: 429, body: { error: { message: 'Rate limit' } }, headers: { 'retry-after': '0' } } }, { text: 'fine' }],
    })
    const r = await runCli(['-p', 'hi'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('fine\n')
    expect(logs(box.home)[0].events.filter((e) => e.type === 'llm/retry')).toHaveLength(1)
  })

  it('a model that asks for bash without permission gets a readable denial and the run still completes', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'touch hacked' } }] }, { text: 'I could not run it.' }] })
    const r = await runCli(['-p', 'run it'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(0)
    const body = mock.requests[1].body as { messages: { role: string; content: string }[] }
    expect(body.messages.at(-1)?.content).toMatch(/permission.*--permission-mode|--allow/)
    expect(readdirSync(box.cwd)).not.toContain('hacked')
  })

  it('survives SIGKILL mid-tool: --resume continues and the interrupted call says its outcome is unknown', async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 30' } }] },
        { match: 'continue', text: 'Resumed fine.' },
      ],
    })
    const env = cliEnv({ url: mock.url, home: box.home })
    const child = spawnCli(['-p', 'sleep a while', '--allow', 'Bash(sleep:*)'], { cwd: box.cwd, env })
    child.stdin.end()
    await new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => {
        try {
          const [log] = logs(box.home)
          if (log?.events.some((e) => e.type === 'tool/call')) {
            clearInterval(poll)
            resolve()
          }
        } catch {
          // The session directory may not exist yet.
        }
      }, 20)
      child.on('exit', () => {
        clearInterval(poll)
        reject(new Error('rein exited before the tool call was logged'))
      })
    })
    child.removeAllListeners('exit')
    child.kill('SIGKILL')
    await new Promise((r) => child.on('close', r))

    const id = logs(box.home)[0].header.id
    const r = await runCli(['-p', 'continue please', '--resume', id.slice(0, 8)], { cwd: box.cwd, env })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('Resumed fine.\n')
    const events = logs(box.home)[0].events
    const result = firstOf(events, 'tool/result')
    expect(result.data.isError).toBe(true)
    expect(JSON.stringify(result.data.content)).toMatch(/outcome of this tool call is unknown/)
    const ends = eventsOf(events, 'turn/end')
    expect(ends.map((e) => e.data.reason)).toEqual(['interrupted', 'completed'])
    const headers = eventsOf(events, 'request/header')
    expect(headers.map((h) => h.data.reason)).toEqual(['initial', 'resume'])
    const last = mock.requests.at(-1)?.body as { messages: { role: string; content: string }[] }
    expect(last.messages.at(-1)).toMatchObject({ role: 'user' })
    expect(last.messages.some((m) => m.role === 'tool' && /outcome of this tool call is unknown/.test(m.content))).toBe(true)

    const verify = await runCli(['sessions', 'verify', id], { cwd: box.cwd, env })
    expect(verify.stdout + verify.stderr).not.toMatch(/does not match/)
    expect(verify.code).toBe(0)
  })

  it('Ctrl-C (SIGINT) cancels the turn cleanly and exits 130 with the log closed', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'x'.repeat(2000), chunkSize: 5, chunkDelayMs: 20 }] })
    const env = cliEnv({ url: mock.url, home: box.home })
    const child = spawnCli(['-p', 'write a lot'], { cwd: box.cwd, env })
    child.stdin.end()
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (mock && mock.requests.length > 0) {
          clearInterval(poll)
          setTimeout(resolve, 150)
        }
      }, 10)
    })
    child.kill('SIGINT')
    const code = await new Promise((r) => child.on('close', r))
    expect(code).toBe(130)
    const events = logs(box.home)[0].events
    const last = events.at(-1)
    expect(last?.type === 'turn/end' && last.data.reason).toBe('interrupted')
    const msg = firstOf(events, 'assistant/message')
    expect(msg.data.interrupted).toBe(true)
  })

  it('--max-turns caps the model requests of the run and reports max-steps with exit 1', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'ls', arguments: {} }], repeat: true }] })
    const r = await runCli(['-p', 'look around', '--max-turns', '3', '--output-format', 'json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'error_max_turns', stop_reason: 'tool_use', is_error: true })
    expect(mock.requests).toHaveLength(3)
  })

  it("--user-id sets DeepSeek's user_id of the run's requests, and a malformed one is refused in one sentence before any request", async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'hello' }] })
    const env = cliEnv({ url: mock.url, home: box.home })
    const ok = await runCli(['-p', 'hi', '--user-id', 'tenant-7'], { cwd: box.cwd, env })
    expect(ok.code).toBe(0)
    expect((mock.requests[0].body as { user_id?: unknown }).user_id).toBe('tenant-7')
    const bad = await runCli(['-p', 'hi', '--user-id', 'me@example.com'], { cwd: box.cwd, env })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe('rein: --user-id must be 1 to 512 letters, digits, "_" or "-" (DeepSeek\'s user_id); got "me@example.com".\n')
    expect(mock.requests).toHaveLength(1)
  })

  it('--fork id@seq starts a new session from a copy of the first, whose header names its parent', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'first' }, { text: 'second' }, { text: 'forked' }] })
    const env = cliEnv({ url: mock.url, home: box.home })
    const one = JSON.parse((await runCli(['-p', 'one', '--output-format', 'json'], { cwd: box.cwd, env })).stdout)
    await runCli(['-p', 'two', '--continue'], { cwd: box.cwd, env })
    const parent = logs(box.home).find((l) => l.header.id === one.session_id)!
    const endOfFirstTurn = parent.events.find((e) => e.type === 'turn/end')!.seq
    const forked = await runCli(['-p', 'three', '--fork', `${one.session_id.slice(0, 8)}@${endOfFirstTurn}`, '--output-format', 'json'], { cwd: box.cwd, env })
    expect(forked.code).toBe(0)
    const child = logs(box.home).find((l) => l.header.id === JSON.parse(forked.stdout).session_id) as unknown as { header: { parent: { id: string; seq: number } } }
    expect(child.header.parent).toEqual({ id: one.session_id, seq: endOfFirstTurn })
    const users = (mock.requests[2].body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === 'user').map((m) => m.content)
    expect(users).toContain('one')
    expect(users).not.toContain('two')
    expect(users).toContain('three')
  })

  it('rein demo runs a scripted session without a key and exits 0', async () => {
    const box = sandbox()
    const r = await runCli(['demo'], { cwd: box.cwd, env: cliEnv({ home: box.home, key: null }) })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Hello, Rein!')
    expect(r.stdout).toContain('[turn 1 completed]')
  })
})
