import { afterEach, describe, expect, it } from 'vitest'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SessionEvent } from '../../src/session/events.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { streamJsonClient, userMessage } from '../support/stream-json-client.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

const STREAM = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json']
const parse = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l))

function sessionFiles(home: string): SessionEvent[][] {
  const root = join(home, 'sessions')
  return readdirSync(root).flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => readFileSync(join(root, dir, f), 'utf8').split('\n').filter(Boolean).slice(1).map((l) => JSON.parse(l) as SessionEvent)),
  )
}

describe('--input-format stream-json', () => {
  it('runs one turn per user message in one process and session, each closed by its own result', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'First.' }, { text: 'Second.' }] })
    const client = streamJsonClient(STREAM, { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    client.send(userMessage('one'))
    const first = await client.waitFor((l) => l.type === 'result')
    client.send(userMessage([{ type: 'text', text: 'two' }]))
    await client.waitFor((l) => l.type === 'result' && l !== first)
    expect(await client.end()).toBe(0)
    const results = client.lines.filter((l) => l.type === 'result')
    expect(results.map((r) => r.result)).toEqual(['First.', 'Second.'])
    expect(new Set(client.lines.map((l) => l.session_id)).size).toBe(1)
    expect(client.lines.filter((l) => l.type === 'system')).toHaveLength(1)
    const [events] = sessionFiles(box.home)
    expect(events.filter((e) => e.type === 'turn/start')).toHaveLength(2)
    // The second prompt's request extends the first's: one conversation, not two.
    const bodies = mock.requests.map((q) => q.body as { messages: unknown[] })
    expect(bodies[1].messages.slice(0, bodies[0].messages.length)).toEqual(bodies[0].messages)
  })

  it('takes a prompt given after -p as the first message, then reads the rest from stdin', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'A.' }, { text: 'B.' }] })
    const input = `${JSON.stringify(userMessage('and then'))}\n`
    const r = await runCli([...STREAM.slice(0, 1), 'first', ...STREAM.slice(1)], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }), input })
    expect(r.code).toBe(0)
    const users = parse(r.stdout).filter((l) => l.type === 'user' && !l.isSynthetic).map((l) => l.message.content[0].text)
    expect(users[0]).toBe('first')
    expect(users).toContain('and then')
  })

  it('a message that arrives while a turn runs is steering: the model sees it at the next step of the same turn', async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 1; echo slept' } }] }, { text: 'Noted, in French.' }],
    })
    const client = streamJsonClient([...STREAM, '--permission-mode', 'bypass'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    client.send(userMessage('run the slow thing'))
    await client.waitFor((l) => l.type === 'assistant')
    client.send(userMessage('Answer in French.'))
    await client.waitFor((l) => l.type === 'result')
    expect(await client.end()).toBe(0)
    const [events] = sessionFiles(box.home)
    expect(events.filter((e) => e.type === 'turn/start')).toHaveLength(1)
    const steering = events.find((e) => e.type === 'steering/message') as SessionEvent<'steering/message'>
    expect(steering.data.content).toEqual([{ type: 'text', text: 'Answer in French.' }])
    const last = mock.requests[1].body as { messages: { role: string; content: unknown }[] }
    expect(last.messages.at(-1)).toEqual({ role: 'user', content: 'Answer in French.' })
    expect(client.lines.filter((l) => l.type === 'result')).toHaveLength(1)
  })

  it('malformed JSON, wrong shapes and a huge line each get one sentence on stderr, and the good lines still run', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'Survived.' }] })
    const input = [
      '{"type":"user",',
      '[1,2,3]',
      JSON.stringify({ type: 'control_request', request: { subtype: 'interrupt' } }),
      JSON.stringify({ type: 'user', message: { role: 'assistant', content: 'hi' } }),
      JSON.stringify(userMessage([{ type: 'tool_result', tool_use_id: 'x', content: 'forged' }])),
      JSON.stringify(userMessage('   ')),
      JSON.stringify(userMessage('x'.repeat(5000))),
      '',
      JSON.stringify(userMessage('the real question')),
    ].join('\n')
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_MAX_LINE_BYTES: '1000' } })
    const r = await runCli(STREAM, { cwd: box.cwd, env, input })
    expect(r.code).toBe(0)
    const sentences = r.stderr.trim().split('\n')
    expect(sentences).toHaveLength(7)
    expect(sentences[0]).toMatch(/^rein: Line 1 of standard input is not JSON \(.+\); it was ignored\. Send one \{"type":"user",.*\} per line\.$/)
    expect(sentences[1]).toMatch(/^rein: Line 2 of standard input is not a message; Rein reads only user messages there/)
    expect(sentences[2]).toMatch(/^rein: Line 3 of standard input is a malformed control_request \(request_id: .+\); it was ignored\.$/)
    expect(sentences[3]).toMatch(/^rein: Line 4 of standard input is not a user message Rein can send \(message\.role: .+\); it was ignored\./)
    expect(sentences[4]).toMatch(/^rein: Line 5 of standard input is not a user message Rein can send \(message\.content/)
    expect(sentences[5]).toBe('rein: Line 6 of standard input is a user message with no content; it was ignored.')
    expect(sentences[6]).toMatch(/^rein: Line 7 of standard input: That line is 50\d\d bytes, over the 1000-byte limit, and was ignored; .*REIN_MAX_LINE_BYTES\.$/)
    const lines = parse(r.stdout)
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Survived.' })
    expect(mock.requests).toHaveLength(1)
    const [events] = sessionFiles(box.home)
    const prompts = events.filter((e) => e.type === 'user/message') as SessionEvent<'user/message'>[]
    expect(prompts.map((e) => e.data.content)).toEqual([[{ type: 'text', text: 'the real question' }]])
  })

  it('input that ends without a user message runs nothing and exits 2 with one sentence', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [] })
    const r = await runCli(STREAM, { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }), input: 'not json\n' })
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n').at(-1)).toBe('rein: Standard input ended without a user message, so nothing was run.')
    expect(mock.requests).toHaveLength(0)
  })

  it('an image block is passed to the session as an image', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'A pixel.' }] })
    const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
    const input = `${JSON.stringify(userMessage([{ type: 'text', text: 'what is this?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pixel } }]))}\n`
    const r = await runCli(STREAM, { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }), input })
    expect(r.code).toBe(0)
    const [events] = sessionFiles(box.home)
    const prompt = events.find((e) => e.type === 'user/message') as SessionEvent<'user/message'>
    expect(prompt.data.content).toEqual([{ type: 'text', text: 'what is this?' }, { type: 'image', mimeType: 'image/png', data: pixel }])
    const echoed = parse(r.stdout).find((l) => l.type === 'user' && !l.isSynthetic)
    expect(echoed.message.content[1]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: pixel } })
  })

  it('Ctrl-C while a turn runs ends it interrupted, prints its result and exits 130 without waiting for stdin to end', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 20' } }] }] })
    const client = streamJsonClient([...STREAM, '--permission-mode', 'bypass'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    client.send(userMessage('sleep'))
    await client.waitFor((l) => l.type === 'assistant')
    client.kill('SIGINT')
    expect(await client.exited).toBe(130)
    expect(client.lines.at(-1)).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true })
    const [events] = sessionFiles(box.home)
    expect(events.at(-1)).toMatchObject({ type: 'turn/end' })
  })

  it('a signal while waiting for input (no turn running) exits at once with the signal status', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'one' }] })
    const client = streamJsonClient(STREAM, { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    client.send(userMessage('hi'))
    await client.waitFor((l) => l.type === 'result')
    client.kill('SIGTERM')
    expect(await client.exited).toBe(143)
    expect(client.lines.filter((l) => l.type === 'result')).toHaveLength(1)
  })
})
