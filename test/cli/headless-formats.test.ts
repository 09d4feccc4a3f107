import { afterEach, describe, expect, it } from 'vitest'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SessionEvent } from '../../src/session/events.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { stdioFixture } from '../mcp/fixture.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

const parse = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l))

function sessionEvents(home: string): SessionEvent[] {
  const root = join(home, 'sessions')
  const [dir] = readdirSync(root)
  const [file] = readdirSync(join(root, dir)).filter((f) => f.endsWith('.jsonl'))
  return readFileSync(join(root, dir, file), 'utf8').split('\n').filter(Boolean).slice(1).map((l) => JSON.parse(l) as SessionEvent)
}

describe('--output-format events and stream-json', () => {
  it('events prints every committed event of the log in order, the deltas, and the result last, with no Claude Code lines', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ reasoning: 'Think.', toolCalls: [{ name: 'ls', arguments: { path: box.cwd } }] }, { text: 'Empty.' }] })
    const r = await runCli(['-p', 'list', '--output-format', 'events'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(0)
    const lines = parse(r.stdout)
    expect(lines.map((l) => l.event?.seq).filter((s) => s !== undefined)).toEqual(sessionEvents(box.home).map((e) => e.seq))
    expect(new Set(lines.map((l) => l.type))).toEqual(new Set(['event', 'reasoning-delta', 'text-delta', 'tool-call-delta', 'idle', 'result']))
    expect(lines.at(-2)).toEqual({ type: 'idle' })
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Empty.' })
  })

  it('stream-json starts with the init line, has no stream_event lines unless asked, and ends with the result', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'Hello.' }] })
    const r = await runCli(['-p', 'hi', '--output-format', 'stream-json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r).toMatchObject({ code: 0, stderr: '' })
    const lines = parse(r.stdout)
    expect(lines.map((l) => l.type)).toEqual(['system', 'user', 'user', 'assistant', 'result'])
    expect(lines[1].message.content).toEqual([{ type: 'text', text: 'hi' }])
    expect(lines[2].isSynthetic).toBe(true)
    expect(lines.at(-1)).toMatchObject({ subtype: 'success', result: 'Hello.', num_turns: 1, session_id: lines[0].session_id })
  })

  it('the init line lists MCP servers with their status and their tools among the tools', async () => {
    const box = sandbox()
    const fixture = stdioFixture()
    const servers = { fixture: { command: fixture.command, args: fixture.args }, broken: { command: join(box.root, 'no-such-server') } }
    writeFileSync(join(box.cwd, '.mcp.json'), JSON.stringify({ mcpServers: servers }))
    mock = await startMockModel({ script: [{ text: 'ok' }] })
    const r = await runCli(['-p', 'hi', '--output-format', 'stream-json', '--trust-project'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    const [init] = parse(r.stdout)
    const byName = Object.fromEntries(init.mcp_servers.map((s: { name: string; status: string }) => [s.name, s.status]))
    expect(byName).toEqual({ fixture: 'connected', broken: 'failed' })
    expect(init.tools).toContain('mcp__fixture__echo')
  })

  it('a stream cut off and retried ends its partial message without a stop reason before the retry streams anew', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'Lost half of this answer.', chunkSize: 4, cut: 4 }, { text: 'The whole answer.' }] })
    const r = await runCli(['-p', 'hi', '--output-format', 'stream-json', '--include-partial-messages'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code, r.stderr).toBe(0)
    const lines = parse(r.stdout)
    const kinds = lines.filter((l) => l.type === 'stream_event' && l.event.type.startsWith('message')).map((l) => [l.event.type, l.event.delta?.stop_reason])
    expect(kinds).toEqual([
      ['message_start', undefined],
      ['message_delta', null],
      ['message_stop', undefined],
      ['message_start', undefined],
      ['message_delta', 'end_turn'],
      ['message_stop', undefined],
    ])
    expect(lines.filter((l) => l.type === 'system').map((l) => l.subtype)).toEqual(['init', 'api_retry'])
    const assistants = lines.filter((l) => l.type === 'assistant')
    expect(assistants.map((a) => a.message.content)).toEqual([[{ type: 'text', text: 'The whole answer.', citations: null }]])
  })

  it('events with stream-json input closes each idle period with a result', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'One.' }] })
    const input = `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' } })}\n`
    const r = await runCli(['-p', '--input-format', 'stream-json', '--output-format', 'events'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }), input })
    expect(r.code).toBe(0)
    const lines = parse(r.stdout)
    expect(lines.slice(-2).map((l) => l.type)).toEqual(['idle', 'result'])
    expect(lines.filter((l) => l.type === 'result')).toHaveLength(1)
    expect(lines.at(-1)).toMatchObject({ subtype: 'success', result: 'One.' })
  })

  it('a response cut by the output limit stops with max_tokens and the run is an error with the sentence to act on', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'A long answer that was cut', finish: 'length' }] })
    const r = await runCli(['-p', 'write a lot', '--output-format', 'stream-json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(1)
    const lines = parse(r.stdout)
    expect(lines.find((l) => l.type === 'assistant').message.stop_reason).toBe('max_tokens')
    expect(lines.at(-1)).toMatchObject({ subtype: 'error_during_execution', is_error: true, stop_reason: 'max_tokens' })
    expect(lines.at(-1).errors[0]).toMatch(/output limit.*maxOutput/)
    expect(lines.at(-1).rein.turn_end_reason).toBe('max-tokens')
  })

  it('json reports usage with input_tokens excluding cache reads, modelUsage per model and Rein extras under rein', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'ls', arguments: { path: box.cwd } }], delayMs: 60 }, { text: 'Nothing here.', delayMs: 60 }] })
    const r = await runCli(['-p', 'look', '--output-format', 'json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    const result = JSON.parse(r.stdout)
    const prompt = mock.requests.reduce((n, q) => n + (q.promptTokens ?? 0), 0)
    const hits = mock.requests.reduce((n, q) => n + (q.cacheHitTokens ?? 0), 0)
    expect(hits).toBeGreaterThan(0)
    expect(result.usage).toMatchObject({ input_tokens: prompt - hits, cache_read_input_tokens: hits, cache_creation_input_tokens: 0 })
    expect(result.modelUsage).toEqual({
      'deepseek-flash': expect.objectContaining({ inputTokens: prompt - hits, cacheReadInputTokens: hits, costUSD: result.total_cost_usd }),
    })
    expect(result).toMatchObject({ stop_reason: 'end_turn', num_turns: 2, rein: { turn_end_reason: 'completed', turns: 1 } })
    expect(result.uuid).toMatch(/^[0-9a-f-]{36}$/)
    // The mock waits 60 ms before each of its two answers: time on the model, not in tools or Rein.
    expect(result.duration_api_ms).toBeGreaterThanOrEqual(100) // timers may fire a little early; 2 × 60 ms less slack
    expect(result.duration_api_ms).toBeLessThanOrEqual(result.duration_ms)
  })

  it('--include-partial-messages without stream-json output exits 2 with one sentence', async () => {
    const box = sandbox()
    const r = await runCli(['-p', 'hi', '--include-partial-messages'], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(r.code).toBe(2)
    expect(r.stderr).toBe('rein: --include-partial-messages needs --output-format stream-json.\n')
  })

  it('--input-format stream-json with text or json output exits 2 with one sentence', async () => {
    const box = sandbox()
    const r = await runCli(['-p', '--input-format', 'stream-json', '--output-format', 'json'], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^rein: --input-format stream-json needs --output-format stream-json \(or events\)[^\n]*\n$/)
  })
})
