import { afterEach, describe, expect, it } from 'vitest'
import { readdirSync } from 'node:fs'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, sandbox, spawnCli } from '../support/cli.js'
import { prefixViolations } from '../support/agent-harness.js'
import { rpc } from '../support/rpc-client.js'

let mock: MockModel | undefined
let child: ChildProcessWithoutNullStreams | undefined
afterEach(async () => {
  child?.kill('SIGKILL')
  await mock?.close()
  mock = undefined
})

describe('rein rpc', () => {
  it('delivers steering sent while a slow tool runs after its result, byte for byte, and keeps the prefix stable', async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 1.5' } }] }, { text: 'Adjusted.' }, { text: 'Noted.' }],
    })
    child = spawnCli(['rpc', '--allow', 'Bash(sleep:*)'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    const c = rpc(child)
    expect(await c.send({ type: 'prompt', message: 'wait then answer' })).toMatchObject({ ok: true })
    await c.waitFor(c.committed('tool/call'))

    const busy = await c.send({ type: 'prompt', message: 'no mode given' })
    expect(busy).toMatchObject({ ok: false, error: expect.stringMatching(/busy.*steer.*followUp/) })

    const steering = 'Actually, answer in French. <not-a-tag/>'
    expect(await c.send({ type: 'steer', message: steering })).toMatchObject({ ok: true })
    await c.waitFor(c.idle(1))

    const second = mock.requests[1].body as { messages: { role: string; content: string }[] }
    expect(second.messages.at(-2)).toMatchObject({ role: 'tool' })
    expect(second.messages.at(-1)).toEqual({ role: 'user', content: steering })

    const injected = '<system-reminder>The user is on a train.</system-reminder>'
    expect(await c.send({ type: 'inject', message: injected })).toMatchObject({ ok: true })
    expect(await c.send({ type: 'get_state' })).toMatchObject({ ok: true, data: { busy: false } })
    expect(mock.requests).toHaveLength(2)
    expect(await c.send({ type: 'prompt', message: 'ok?' })).toMatchObject({ ok: true })
    await c.waitFor(c.idle(2))
    const third = mock.requests[2].body as { messages: { role: string; content: string }[] }
    expect(third.messages.slice(-2)).toEqual([
      { role: 'user', content: injected },
      { role: 'user', content: 'ok?' },
    ])
    expect(prefixViolations(mock.requests.map((r) => r.body as { messages: unknown[] }))).toEqual([])

    expect(await c.send({ type: 'shutdown' })).toMatchObject({ ok: true })
    expect(await new Promise((r) => child!.on('close', r))).toBe(0)
  })

  it('answers malformed lines with an error response and keeps running', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'still here' }] })
    child = spawnCli(['rpc'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    const c = rpc(child)
    c.raw('{this is not json\n')
    expect(await c.waitFor((l) => l.type === 'response' && l.ok === false)).toMatchObject({ id: null, error: expect.stringMatching(/not valid JSON/) })
    expect(await c.send({ type: 'frobnicate' })).toMatchObject({ ok: false, error: expect.stringMatching(/Invalid command "frobnicate"/) })
    expect(await c.send({ type: 'prompt' })).toMatchObject({ ok: false, error: expect.stringMatching(/message/) })
    expect(await c.send({ type: 'prompt', message: 'hello' })).toMatchObject({ ok: true })
    await c.waitFor(c.committed('turn/end'))
    const messages = await c.send({ type: 'get_messages' })
    expect((messages.data as { messages: { role: string }[] }).messages.map((m) => m.role)).toContain('assistant')
    expect(await c.send({ type: 'cancel' })).toMatchObject({ ok: true })
    expect(await c.send({ type: 'shutdown' })).toMatchObject({ ok: true })
  })

  it('with --ask-permissions, asks the client and obeys its answers: allow once, deny with a note', async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo allowed-run' } }] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'touch denied-file' } }] },
        { text: 'Done.' },
      ],
    })
    child = spawnCli(['rpc', '--ask-permissions'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    const c = rpc(child)
    await c.send({ type: 'prompt', message: 'run things' })
    const first = await c.waitFor((l) => l.type === 'permission_request')
    expect(first).toMatchObject({ call: { name: 'bash' }, suggestedRule: expect.stringContaining('Bash(') })
    expect(await c.send({ type: 'permission_response', requestId: first.requestId, outcome: 'allow-once' })).toMatchObject({ ok: true })
    const second = await c.waitFor((l) => l.type === 'permission_request' && l.requestId !== first.requestId)
    expect(await c.send({ type: 'permission_response', requestId: second.requestId, outcome: 'deny', note: 'not in this repo' })).toMatchObject({ ok: true })
    await c.waitFor(c.idle(1))
    const results = (mock.requests[2].body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === 'tool')
    expect(results[0].content).toContain('allowed-run')
    expect(results[1].content).toMatch(/denied permission.*not in this repo/)
    expect(readdirSync(box.cwd)).not.toContain('denied-file')
    expect(await c.send({ type: 'permission_response', requestId: 'nope', outcome: 'deny' })).toMatchObject({ ok: false })
    await c.send({ type: 'shutdown' })
  })

  it('forks the session and continues in the copy', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'one' }, { text: 'two' }] })
    child = spawnCli(['rpc'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    const c = rpc(child)
    await c.send({ type: 'prompt', message: 'first' })
    await c.waitFor(c.idle(1))
    const before = (await c.send({ type: 'get_state' })).data as { sessionId: string }
    const forked = await c.send({ type: 'fork' })
    expect(forked).toMatchObject({ ok: true, data: { parent: before.sessionId } })
    const after = (await c.send({ type: 'get_state' })).data as { sessionId: string }
    expect(after.sessionId).toBe((forked.data as { sessionId: string }).sessionId)
    expect(after.sessionId).not.toBe(before.sessionId)
    await c.send({ type: 'prompt', message: 'second' })
    await c.waitFor(c.idle(1), 20_000).then(() => c.waitFor((l) => l.type === 'event' && (l.event as { type: string }).type === 'idle' && mock!.requests.length === 2))
    const body = mock.requests[1].body as { messages: { role: string; content: string }[] }
    expect(body.messages.filter((m) => m.role === 'user').map((m) => m.content)).toContain('first')
    await c.send({ type: 'shutdown' })
  })
})
