import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/session/events.js'
import { verifyEvents } from '../../src/session/verify.js'
import { echoTool, harness, nextCommitted, prefixViolations, sleepTool } from '../support/agent-harness.js'
import { eventsOf, firstOf } from '../support/events.js'

const types = (events: readonly SessionEvent[]): string[] => events.map((e) => e.type)
const lastUser = (body: { messages: { role: string; content: unknown }[] }) =>
  [...body.messages].reverse().find((m) => m.role === 'user')

describe('the turn/step loop', () => {
  it('runs a prompt with a tool call to completion and logs the flow of DESIGN section 3 in order', async () => {
    const h = await harness({
      script: [
        { reasoning: 'I should echo.', toolCalls: [{ name: 'echo', arguments: { text: 'hi' } }] },
        { text: 'Done.' },
      ],
    })
    h.agent.followUp('say hi')
    const outcome = await h.agent.whenIdle()
    expect(outcome?.reason).toBe('completed')
    const flow = types(h.session.events).filter((t) => !t.startsWith('inbox/'))
    expect(flow).toEqual([
      'turn/start',
      'step/start',
      'user/message',
      'request/header',
      'request/sent',
      'assistant/message',
      'tool/call',
      'tool/result',
      'step/end',
      'step/start',
      'request/sent',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    const bodies = h.bodies()
    expect(bodies).toHaveLength(2)
    expect(prefixViolations(bodies)).toEqual([])
    const assistant = bodies[1].messages.find((m) => m.role === 'assistant')
    expect(assistant?.reasoning_content).toBe('I should echo.')
    expect(bodies[1].messages.at(-1)).toMatchObject({ role: 'tool', content: 'echo: hi' })
    expect(verifyEvents(h.session.header, h.session.events)).toEqual([])
    await h.close()
  })

  it('records the sha256 and size of the exact body sent', async () => {
    const h = await harness({ script: [{ text: 'ok' }] })
    h.agent.followUp('hello')
    await h.agent.whenIdle()
    const sent = firstOf(h.session.events, 'request/sent')
    const raw = JSON.stringify(h.mock.requests[0].body)
    expect(sent.data.bytes).toBeGreaterThan(0)
    expect(sent.data.bytes).toBe(Buffer.byteLength(raw))
    await h.close()
  })

  it('turns malformed tool-call JSON and an unknown tool into error results the model reads, not a crash', async () => {
    const h = await harness({
      script: [
        { toolCalls: [{ name: 'echo', arguments: '{"text": "unterminated' }, { name: 'nope', arguments: {} }] },
        { toolCalls: [{ name: 'echo', arguments: { text: 42 } }] },
        { text: 'I give up.' },
      ],
    })
    h.agent.followUp('go')
    expect((await h.agent.whenIdle())?.reason).toBe('completed')
    const results = eventsOf(h.session.events, 'tool/result')
    expect(results.map((r) => r.data.isError)).toEqual([true, true, true])
    expect((results[0].data.content[0] as { text: string }).text).toMatch(/not valid JSON/)
    expect((results[1].data.content[0] as { text: string }).text).toMatch(/no tool named "nope".*echo/)
    expect((results[2].data.content[0] as { text: string }).text).toMatch(/invalid arguments for echo: text/)
    const call = firstOf(h.session.events, 'tool/call')
    expect(call.data.arguments).toBe('{"text": "unterminated')
    await h.close()
  })

  it('runs read-only calls concurrently and commits their results in model order', async () => {
    const log: string[] = []
    const h = await harness({
      tools: [sleepTool(log)],
      script: [
        {
          toolCalls: [
            { name: 'sleep', arguments: { ms: 120, label: 'a' } },
            { name: 'sleep', arguments: { ms: 10, label: 'b' } },
          ],
        },
        { text: 'ok' },
      ],
    })
    h.agent.followUp('sleep twice')
    await h.agent.whenIdle()
    expect(log.slice(0, 2)).toEqual(['start a', 'start b'])
    expect(log.indexOf('end b')).toBeLessThan(log.indexOf('end a'))
    const results = eventsOf(h.session.events, 'tool/result')
    expect(results.map((r) => (r.data.content[0] as { text: string }).text)).toEqual(['slept 120 a', 'slept 10 b'])
    await h.close()
  })

  it('delivers steering sent during a slow tool after its result, verbatim, in the next request', async () => {
    const h = await harness({
      tools: [sleepTool()],
      script: [{ toolCalls: [{ name: 'sleep', arguments: { ms: 300 } }] }, { text: 'adjusted' }],
    })
    h.agent.followUp('start')
    await nextCommitted(h.agent, 'tool/call')
    const steering = '  Also: use <b>tabs</b>, not spaces.\n'
    h.agent.steer(steering)
    await h.agent.whenIdle()
    const order = types(h.session.events).filter((t) => ['tool/result', 'step/end', 'steering/message'].includes(t))
    expect(order).toEqual(['tool/result', 'step/end', 'steering/message', 'step/end'])
    const second = h.bodies()[1]
    expect(second.messages.at(-2)).toMatchObject({ role: 'tool' })
    expect(second.messages.at(-1)).toEqual({ role: 'user', content: steering })
    expect(prefixViolations(h.bodies())).toEqual([])
    await h.close()
  })

  it('sends injected context with the next request without waking an idle agent', async () => {
    const h = await harness({ script: [{ text: 'first' }, { text: 'second' }] })
    h.agent.followUp('one')
    await h.agent.whenIdle()
    h.agent.inject('<note>the build is green</note>', { kind: 'test-producer' }, { secret: 'never rendered' })
    await new Promise((r) => setTimeout(r, 50))
    expect(h.agent.busy).toBe(false)
    expect(h.mock.requests).toHaveLength(1)
    h.agent.followUp('two')
    await h.agent.whenIdle()
    const body = h.bodies()[1]
    const raw = JSON.stringify(body)
    // Queue order: the context was injected before the prompt was sent.
    expect(body.messages.slice(-2)).toEqual([
      { role: 'user', content: '<note>the build is green</note>' },
      { role: 'user', content: 'two' },
    ])
    expect(raw).not.toContain('never rendered')
    expect(raw).not.toContain('test-producer')
    await h.close()
  })

  it('lets a turnStopping listener keep the turn going with steering that reaches the model verbatim', async () => {
    let stops = 0
    const h = await harness({
      script: [{ text: 'done?' }, { text: 'now done' }],
      extensions: [
        {
          name: 'keep-going',
          turnStopping: (_info, agent) => {
            if (stops++ === 0) agent.steer('Tests are still failing; fix them.', { kind: 'hook' })
          },
        },
      ],
    })
    h.agent.followUp('work')
    expect((await h.agent.whenIdle())?.reason).toBe('completed')
    expect(h.session.events.filter((e) => e.type === 'turn/start')).toHaveLength(1)
    expect(lastUser(h.bodies()[1])).toEqual({ role: 'user', content: 'Tests are still failing; fix them.' })
    await h.close()
  })

  it('cancels mid-stream, keeping the text already streamed as an interrupted message', async () => {
    const h = await harness({ script: [{ text: 'a'.repeat(400), chunkSize: 10, chunkDelayMs: 20 }] })
    h.agent.followUp('long answer')
    await new Promise<void>((resolve) => {
      const off = h.agent.subscribe((e) => {
        if (e.type === 'text-delta') {
          off()
          resolve()
        }
      })
    })
    h.agent.cancel()
    const outcome = await h.agent.whenIdle()
    expect(outcome?.reason).toBe('aborted')
    const msg = firstOf(h.session.events, 'assistant/message')
    expect(msg.data.interrupted).toBe(true)
    const text = (msg.data.message.content[0] as { text: string }).text
    expect(text.length).toBeGreaterThan(0)
    expect(text.length).toBeLessThan(400)
    h.agent.cancel()
    expect(verifyEvents(h.session.header, h.session.events)).toEqual([])
    await h.close()
  })

  it('cancels mid-tool: the running call is stopped and recorded, unstarted calls get synthetic results', async () => {
    const log: string[] = []
    const slow = { ...sleepTool(log), readOnly: false }
    const h = await harness({
      tools: [slow, echoTool],
      script: [
        {
          toolCalls: [
            { name: 'sleep', arguments: { ms: 5000, label: 'x' } },
            { name: 'echo', arguments: { text: 'never' } },
          ],
        },
      ],
    })
    h.agent.followUp('go')
    await nextCommitted(h.agent, 'tool/call')
    await new Promise((r) => setTimeout(r, 30))
    h.agent.cancel()
    expect((await h.agent.whenIdle())?.reason).toBe('aborted')
    expect(log).toContain('killed x')
    const results = eventsOf(h.session.events, 'tool/result')
    expect(results).toHaveLength(2)
    expect((results[1].data.content[0] as { text: string }).text).toMatch(/Cancelled.*before this call ran/)
    expect(verifyEvents(h.session.header, h.session.events)).toEqual([])
    await h.close()
  })

  it('retries a 429 with the retry logged, then succeeds', async () => {
    const h = await harness({
      script: [{ error: { status: 429, body: { error: { message: 'Rate limit reached' } }, headers: { 'retry-after': '1' } } }, { text: 'ok' }],
    })
    h.agent.followUp('hi')
    expect((await h.agent.whenIdle())?.reason).toBe('completed')
    const retry = firstOf(h.session.events, 'llm/retry')
    expect(retry.data.attempt).toBe(1)
    expect(retry.data.error.code).toBe('rate-limit')
    expect(retry.data.delayMs).toBe(1000)
    await h.close()
  })

  it('ends the turn with a one-sentence error on 401 and does not retry', async () => {
    const h = await harness({ script: [{ error: { status: 401, body: { error: { message: 'Authentication Fails' } } } }] })
    h.agent.followUp('hi')
    const outcome = await h.agent.whenIdle()
    expect(outcome?.reason).toBe('error')
    expect(outcome?.message).toMatch(/DEEPSEEK_API_KEY/)
    expect(h.session.events.some((e) => e.type === 'llm/retry')).toBe(false)
    expect(h.mock.requests).toHaveLength(1)
    await h.close()
  })

  it('ends the turn max-tokens when the output cap cuts the answer', async () => {
    const h = await harness({ script: [{ text: 'partial', finish: 'length' }] })
    h.agent.followUp('hi')
    expect((await h.agent.whenIdle())?.reason).toBe('max-tokens')
    await h.close()
  })

  it('ends the turn with an error naming a listener that throws, leaving a whole log', async () => {
    const h = await harness({
      script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] }],
      extensions: [
        {
          name: 'broken-guard',
          postTool: () => {
            throw new Error('boom')
          },
        },
      ],
    })
    h.agent.followUp('go')
    const outcome = await h.agent.whenIdle()
    expect(outcome?.reason).toBe('error')
    expect(outcome?.message).toMatch(/broken-guard/)
    expect(verifyEvents(h.session.header, h.session.events)).toEqual([])
    await h.close()
  })

  it('a preStep reject blocks the prompt: the turn ends blocked and nothing is sent', async () => {
    const h = await harness({
      script: [{ text: 'never' }],
      extensions: [{ name: 'gate', preStep: () => ({ action: 'reject', reason: 'Prompts mentioning secrets are blocked.' }) }],
    })
    h.agent.followUp('print the secrets')
    const outcome = await h.agent.whenIdle()
    expect(outcome).toMatchObject({ reason: 'blocked', message: 'Prompts mentioning secrets are blocked.' })
    expect(h.mock.requests).toHaveLength(0)
    expect(h.session.events.some((e) => e.type === 'user/message')).toBe(false)
    await h.close()
  })

  it('a preTool rewrite is re-validated, logged beside the raw arguments, and used to run the tool', async () => {
    const h = await harness({
      script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'rm -rf /' } }] }, { text: 'ok' }],
      extensions: [{ name: 'sanitizer', preTool: () => ({ action: 'rewrite', arguments: '{"text":"safe"}' }) }],
    })
    h.agent.followUp('go')
    await h.agent.whenIdle()
    const call = firstOf(h.session.events, 'tool/call')
    expect(call.data.arguments).toBe('{"text":"rm -rf /"}')
    expect(call.data.rewritten).toEqual({ arguments: '{"text":"safe"}', by: 'sanitizer' })
    const result = firstOf(h.session.events, 'tool/result')
    expect(result.data.content).toEqual([{ type: 'text', text: 'echo: safe' }])
    await h.close()
  })

  it('asks the attached front end when a listener says ask, and denies with a readable result when none is attached', async () => {
    const ask = { name: 'policy', preTool: () => ({ action: 'ask' as const, reason: 'echo needs approval' }) }
    const h = await harness({ script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] }, { text: 'ok' }], extensions: [ask] })
    h.agent.followUp('go')
    await h.agent.whenIdle()
    const denied = firstOf(h.session.events, 'tool/result')
    expect(denied.data.isError).toBe(true)
    expect((denied.data.content[0] as { text: string }).text).toMatch(/needs permission.*--permission-mode or --allow/)

    const asked: string[] = []
    h.agent.permissionAsker = async (request) => {
      asked.push(request.reason)
      return { outcome: 'allow-once' }
    }
    h.mock.push({ toolCalls: [{ name: 'echo', arguments: { text: 'b' } }] }, { text: 'ok' })
    h.agent.followUp('again')
    await h.agent.whenIdle()
    expect(asked).toEqual(['echo needs approval'])
    const results = eventsOf(h.session.events, 'tool/result')
    expect(results[1].data.content).toEqual([{ type: 'text', text: 'echo: b' }])
    await h.close()
  })

  it('stopTurn ends the running turn as blocked with its message, leaving a whole log', async () => {
    const h = await harness({
      script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'a' } }, { name: 'echo', arguments: { text: 'b' } }] }, { text: 'never asked' }],
      extensions: [
        {
          name: 'freeze',
          preTool: (_call, agent) => {
            agent.stopTurn('Deploy freeze is on.')
            return { action: 'deny', reason: 'Deploy freeze is on.' }
          },
        },
      ],
    })
    h.agent.followUp('go')
    expect(await h.agent.whenIdle()).toMatchObject({ reason: 'blocked', message: 'Deploy freeze is on.' })
    expect(h.mock.requests).toHaveLength(1)
    expect(h.session.events.filter((e) => e.type === 'tool/result')).toHaveLength(2)
    expect(verifyEvents(h.session.header, h.session.events)).toEqual([])
    h.agent.stopTurn('while idle: nothing happens')
    expect(h.agent.busy).toBe(false)
    await h.close()
  })

  it('a queued steer taken back before the step boundary is never delivered, and the log says it was withdrawn', async () => {
    const h = await harness({ tools: [sleepTool()], script: [{ toolCalls: [{ name: 'sleep', arguments: { ms: 200 } }] }, { text: 'ok' }] })
    h.agent.followUp('start')
    await nextCommitted(h.agent, 'tool/call')
    const id = h.agent.steer('never mind this')
    expect(h.agent.withdraw(id)?.content).toEqual([{ type: 'text', text: 'never mind this' }])
    await h.agent.whenIdle()
    expect(h.session.events.some((e) => e.type === 'steering/message')).toBe(false)
    expect(h.session.events.find((e) => e.type === 'inbox/dequeued' && e.data.id === id)?.data).toEqual({ id, reason: 'withdrawn' })
    expect(h.agent.withdraw(id)).toBeUndefined()
    await h.close()
  })

  it('keeps notices raised before anyone listens (SessionStart hooks) for the first listener', async () => {
    const h = await harness({ script: [], extensions: [{ name: 'greeter', sessionStart: (agent) => agent.notify('warning', 'A hook file was skipped.') }] })
    const seen: string[] = []
    h.agent.subscribe((e) => {
      if (e.type === 'notice') seen.push(e.message)
    })
    expect(seen).toEqual(['A hook file was skipped.'])
    await h.close()
  })

  it('ends a turn max-steps when it reaches the step cap', async () => {
    const h = await harness({
      agent: { maxSteps: 2 },
      script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'again' } }], repeat: true }],
    })
    h.agent.followUp('loop forever')
    expect((await h.agent.whenIdle())?.reason).toBe('max-steps')
    expect(h.mock.requests).toHaveLength(2)
    expect(verifyEvents(h.session.header, h.session.events)).toEqual([])
    await h.close()
  })

  it('runs follow-ups as separate turns, one per turn, in order', async () => {
    const h = await harness({ script: [{ text: 'a', chunkDelayMs: 5 }, { text: 'b' }, { text: 'c' }] })
    h.agent.followUp('one')
    h.agent.followUp('two')
    h.agent.followUp('three')
    await h.agent.whenIdle()
    const users = eventsOf(h.session.events, 'user/message')
    expect(users.map((u) => (u.data.content[0] as { text: string }).text)).toEqual(['one', 'two', 'three'])
    expect(h.session.events.filter((e) => e.type === 'turn/end')).toHaveLength(3)
    expect(prefixViolations(h.bodies())).toEqual([])
    await h.close()
  })
})
