import { describe, expect, it } from 'vitest'
import type { EventType, SessionEvent } from '../../src/session/events.js'
import { ClaudeMessages } from '../../src/cli/print/claude/messages.js'
import { PartialMessages } from '../../src/cli/print/claude/partial.js'
import { ChildStream } from '../../src/cli/print/claude/child-stream.js'
import { eventUuid, nameUuid } from '../../src/cli/print/claude/ids.js'
import { parseInputLine } from '../../src/cli/print/stream-input.js'
import { summarize } from '../../src/cli/print/result.js'
import { ApiClock } from '../../src/cli/print/api-clock.js'
import { modelInfo } from '../../src/llm/catalog.js'
import type { UserLine } from '../../src/cli/print/claude/shapes.js'

const SESSION = '11111111-2222-4333-8444-555555555555'
const usage = { inputUncached: 100, inputCacheRead: 900, output: 50, reasoning: 10 }

function log(...specs: [EventType, unknown][]): SessionEvent[] {
  return specs.map(([type, data], seq) => ({ seq, time: 0, type, data }) as SessionEvent)
}

const text = (t: string) => ({ role: 'assistant', content: [{ type: 'text', text: t }] })
const call = (id: string, args: string) => ({ role: 'assistant', content: [{ type: 'tool-call', id, name: 'read', arguments: args }] })

function project(events: SessionEvent[]) {
  const messages = new ClaudeMessages(SESSION, 'deepseek-flash')
  return [...events.flatMap((e) => messages.push(e)), ...messages.finish()]
}

describe('the Claude Code projection of the log', () => {
  const toolTurn = log(
    ['turn/start', { turn: 1 }],
    ['step/start', { turn: 1, step: 1 }],
    ['user/message', { id: 'not-a-uuid', content: [{ type: 'text', text: 'go' }], source: { kind: 'user' } }],
    ['context/message', { id: 'c', content: [{ type: 'text', text: '<system-reminder>x</system-reminder>' }], source: { kind: 'runtime' } }],
    ['assistant/message', { turn: 1, step: 1, message: { role: 'assistant', content: [call('a', '{"file_path":"x"}').content[0], call('b', 'not json').content[0]] }, usage }],
    ['tool/call', { turn: 1, step: 1, callId: 'a', name: 'read', arguments: '{"file_path":"x"}' }],
    ['tool/result', { turn: 1, step: 1, callId: 'a', content: [{ type: 'text', text: 'one' }], isError: false }],
    ['tool/call', { turn: 1, step: 1, callId: 'b', name: 'read', arguments: 'not json' }],
    ['tool/result', { turn: 1, step: 1, callId: 'b', content: [{ type: 'text', text: 'Error: bad JSON' }], isError: true }],
    ['step/end', { turn: 1, step: 1 }],
    ['step/start', { turn: 1, step: 2 }],
    ['steering/message', { id: 's', turn: 1, content: [{ type: 'text', text: 'shorter' }], source: { kind: 'user' } }],
    ['assistant/message', { turn: 1, step: 2, message: text('done'), usage }],
    ['step/end', { turn: 1, step: 2 }],
    ['turn/end', { turn: 1, reason: 'completed' }],
  )

  it('gives the same lines, uuids included, every time the same events are projected', () => {
    expect(project(toolTurn)).toEqual(project(toolTurn))
  })

  it('turns prompts, context and steering into user lines verbatim, marking only context as synthetic', () => {
    const users = project(toolTurn).filter((l): l is UserLine => l.type === 'user' && l.message.content[0].type === 'text')
    expect(users.map((l) => [l.message.content, 'isSynthetic' in l])).toEqual([
      [[{ type: 'text', text: 'go' }], false],
      [[{ type: 'text', text: '<system-reminder>x</system-reminder>' }], true],
      [[{ type: 'text', text: 'shorter' }], false],
    ])
  })

  it('gathers a step’s tool results into one user line, in call order, after the assistant line that asked', () => {
    const lines = project(toolTurn)
    expect(lines.map((l) => l.type)).toEqual(['user', 'user', 'assistant', 'user', 'user', 'assistant'])
    const results = lines[3]
    if (results.type !== 'user') throw new Error(`line 3 is ${results.type}, not the user line of tool results`)
    expect(results.message.content).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'one' }], is_error: false },
      { type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: 'Error: bad JSON' }], is_error: true },
    ])
  })

  it('shows tool input as an object, and arguments that are not a JSON object as an empty one', () => {
    const first = project(toolTurn)[2]
    expect(first.type === 'assistant' && first.message.content.map((b) => (b.type === 'tool_use' ? b.input : null))).toEqual([{ file_path: 'x' }, {}])
  })

  it('reports usage with input_tokens excluding cache reads, and stop reasons as the API names them', () => {
    const assistants = project(toolTurn).filter((l) => l.type === 'assistant')
    expect(assistants.map((l) => l.type === 'assistant' && l.message.stop_reason)).toEqual(['tool_use', 'end_turn'])
    expect(assistants[0].type === 'assistant' && assistants[0].message.usage).toMatchObject({ input_tokens: 100, cache_read_input_tokens: 900, output_tokens: 50 })
    const cut = log(
      ['assistant/message', { turn: 1, step: 1, message: text('part'), usage }],
      ['step/end', { turn: 1, step: 1 }],
      ['turn/end', { turn: 1, reason: 'max-tokens', error: { code: 'max-tokens', message: 'cut' } }],
    )
    const [line] = project(cut)
    expect(line.type === 'assistant' && line.message.stop_reason).toBe('max_tokens')
    const stopped = project(log(['assistant/message', { turn: 1, step: 1, message: text('half'), interrupted: true }]))
    expect(stopped[0].type === 'assistant' && stopped[0].message.stop_reason).toBeNull()
  })

  it('keeps an input message’s own UUID as its uuid and derives a stable version-5 UUID for every other event', () => {
    const id = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee'
    expect(eventUuid(SESSION, 3, id)).toBe(id)
    expect(eventUuid(SESSION, 3, 'not-a-uuid')).toBe(eventUuid(SESSION, 3))
    expect(eventUuid(SESSION, 3)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(eventUuid(SESSION, 3)).not.toBe(eventUuid(SESSION, 4))
    expect(nameUuid('x')).toBe(nameUuid('x'))
  })
})

describe('partial messages', () => {
  it('open a message on the first delta, a block per kind of output, and close with the committed stop reason', () => {
    const partial = new PartialMessages(SESSION, () => 'deepseek-flash')
    const events = [
      ...partial.delta({ type: 'reasoning-delta', turn: 1, step: 1, text: 'hm' }),
      ...partial.delta({ type: 'text-delta', turn: 1, step: 1, text: 'Hi' }),
      ...partial.delta({ type: 'text-delta', turn: 1, step: 1, text: '!' }),
      ...partial.delta({ type: 'tool-call-delta', turn: 1, step: 1, index: 0, id: 'c1', name: 'ls', argumentsDelta: '{"pa' }),
      ...partial.delta({ type: 'tool-call-delta', turn: 1, step: 1, index: 0, argumentsDelta: 'th":"."}' }),
    ].map((l) => l.event)
    const id = events[0].type === 'message_start' ? events[0].message.id : ''
    const usage = { input_tokens: 1, cache_read_input_tokens: 2, cache_creation_input_tokens: 0, output_tokens: 3, cache_creation: null, fallback_credit: null, inference_geo: null, iterations: null, output_tokens_details: { thinking_tokens: 1 }, server_tool_use: null, service_tier: null, speed: null }
    const end = partial.close(id, 'tool_use', usage)
    expect([...events, ...end.map((l) => l.event)].map((e) => ('index' in e ? `${e.type}:${e.index}` : e.type))).toEqual([
      'message_start',
      'content_block_start:0',
      'content_block_delta:0',
      'content_block_stop:0',
      'content_block_start:1',
      'content_block_delta:1',
      'content_block_delta:1',
      'content_block_stop:1',
      'content_block_start:2',
      'content_block_delta:2',
      'content_block_delta:2',
      'content_block_stop:2',
      'message_delta',
      'message_stop',
    ])
    expect(end[1].event).toMatchObject({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } })
    // A message is closed once; closing it again prints nothing.
    expect(partial.close(id, 'end_turn', usage)).toEqual([])
  })
})

describe('stream-json input lines', () => {
  it('accept Claude Code’s user message with string or block content and ignore its extra fields', () => {
    expect(parseInputLine(JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' }, session_id: 'x', parent_tool_use_id: null }), 1)).toEqual({ content: [{ type: 'text', text: 'hi' }] })
    expect(parseInputLine('   ', 2)).toEqual({ blank: true })
  })

  it('refuse anything else with one sentence that names the line', () => {
    expect(parseInputLine('{', 4)).toMatchObject({ problem: expect.stringMatching(/^Line 4 of standard input is not JSON/) })
    expect(parseInputLine('"user"', 5)).toMatchObject({ problem: expect.stringMatching(/^Line 5 .* not a message/) })
    expect(parseInputLine(JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'document' }] } }), 6)).toMatchObject({
      problem: expect.stringMatching(/^Line 6 .*not a user message Rein can send/),
    })
  })
})

describe('the result', () => {
  const model = modelInfo('deepseek-flash')
  const turn = log(
    ['turn/start', { turn: 1 }],
    ['step/start', { turn: 1, step: 1 }],
    ['assistant/message', { turn: 1, step: 1, message: call('a', '{}'), usage }],
    ['step/end', { turn: 1, step: 1 }],
    ['step/start', { turn: 1, step: 2 }],
    ['step/end', { turn: 1, step: 2 }],
    ['turn/end', { turn: 1, reason: 'error', error: { code: 'server', message: 'DeepSeek failed (500); try again.' } }],
  )

  it('is error_during_execution with the sentence in errors and no stop reason when the last request got no answer', () => {
    const result = summarize(turn, 0, SESSION, undefined, model, 5)
    expect(result).toMatchObject({ subtype: 'error_during_execution', is_error: true, errors: ['DeepSeek failed (500); try again.'], stop_reason: null, num_turns: 1 })
    expect(result).not.toHaveProperty('result')
  })

  it('counts input once: input_tokens plus cache_read_input_tokens is the prompt', () => {
    const result = summarize(turn, 0, SESSION, undefined, model, 5)
    expect(result.usage.input_tokens + result.usage.cache_read_input_tokens).toBe(1000)
    expect(result.rein).toMatchObject({ turn_end_reason: 'error', turns: 1, reasoning_tokens: 10, cache_hit_ratio: 0.9 })
    expect(result.rein.subagents).toMatchObject({ count: 0, total_cost_usd: 0, usage: { input_tokens: 0, output_tokens: 0 } })
  })

  it("adds each finished child's cost to total_cost_usd, shows children's usage apart, and names each child's model in modelUsage", () => {
    const childUsage = { inputUncached: 20, inputCacheRead: 80, output: 5, reasoning: 1 }
    const events = log(
      ['turn/start', { turn: 1 }],
      ['step/start', { turn: 1, step: 1 }],
      ['assistant/message', { turn: 1, step: 1, message: text('ok'), usage }],
      ['subagent/end', { callId: 'a', child: 'child-a', outcome: 'completed', usage: childUsage, cost: 0.25 }],
      ['subagent/end', { callId: 'b', child: 'child-b', outcome: 'error', usage: childUsage, cost: 0.5 }],
      ['step/end', { turn: 1, step: 1 }],
      ['turn/end', { turn: 1, reason: 'completed' }],
    )
    const pro = modelInfo('deepseek-v4-pro')
    const own = summarize(events.filter((e) => e.type !== 'subagent/end'), 0, SESSION, undefined, model, 5).total_cost_usd
    // child-b's model is unknown to the printer (it started in another process): it counts under the session's model.
    const result = summarize(events, 0, SESSION, undefined, model, 5, [], { childModels: new Map([['child-a', pro]]) })
    expect(result.total_cost_usd).toBeCloseTo(own + 0.75, 6)
    expect(result.usage).toMatchObject({ input_tokens: 100, cache_read_input_tokens: 900, output_tokens: 50 })
    expect(result.rein.subagents).toMatchObject({ count: 2, total_cost_usd: 0.75, usage: { input_tokens: 40, cache_read_input_tokens: 160, output_tokens: 10 } })
    expect(result.modelUsage[pro.id]).toMatchObject({ inputTokens: 20, cacheReadInputTokens: 80, outputTokens: 5, costUSD: 0.25, contextWindow: pro.contextWindow })
    expect(result.modelUsage[model.id]).toMatchObject({ inputTokens: 120, cacheReadInputTokens: 980, outputTokens: 55 })
    expect(result.modelUsage[model.id].costUSD).toBeCloseTo(own + 0.5, 6)
  })

  it('prefers the outcome the run reported over the log (a turn end that could not be written)', () => {
    const result = summarize(turn.slice(0, 3), 0, SESSION, { turn: 1, reason: 'error', message: 'Disk full.' }, model, 5)
    expect(result.errors).toEqual(['Disk full.'])
  })
})

describe('the model-time clock', () => {
  it('counts from each request sent to its response, retry or turn end, and nothing in between', () => {
    let now = 0
    const clock = new ApiClock(() => now)
    const at = (t: number, type: EventType) => {
      now = t
      clock.observe({ seq: 0, time: 0, type, data: {} } as SessionEvent)
    }
    at(0, 'request/sent')
    at(30, 'llm/retry')
    at(40, 'request/sent')
    at(100, 'assistant/message')
    at(500, 'tool/result')
    at(600, 'request/sent')
    at(650, 'turn/end')
    at(700, 'turn/end')
    expect(clock.take()).toBe(30 + 60 + 50)
    expect(clock.take()).toBe(0)
  })
})

describe("a subagent's lines", () => {
  const CHILD = '99999999-2222-4333-8444-555555555555'
  const childLog = log(
    ['turn/start', { turn: 1 }],
    ['step/start', { turn: 1, step: 1 }],
    ['user/message', { id: 'p', content: [{ type: 'text', text: 'Where is alpha?' }], source: { kind: 'subagent' } }],
    ['llm/retry', { turn: 1, step: 1, attempt: 1, delayMs: 0, error: { code: 'rate-limit', message: 'Slow down.', status: 429 } }],
    ['assistant/message', { turn: 1, step: 1, message: text('alpha is in a.txt'), usage }],
  )

  it("carry the task call id and the child's session, drop system lines, and print a held response when the child goes idle", () => {
    const lines: { type: string; session_id: string; parent_tool_use_id?: string | null }[] = []
    const stream = new ChildStream({ sessionId: CHILD, callId: 'call-7', modelId: 'deepseek-flash', partial: true, write: (l) => lines.push(l) })
    const feed = (events: SessionEvent[]) => events.forEach((event) => stream.live({ type: 'event', event }))
    feed(childLog.slice(0, 4))
    stream.live({ type: 'text-delta', turn: 1, step: 1, text: 'alpha' })
    feed(childLog.slice(4))
    // The retry prints nothing; the response is held until the event after it shows how it stopped.
    expect(lines.map((l) => l.type)).toEqual(['user', 'stream_event', 'stream_event', 'stream_event'])
    stream.live({ type: 'idle' })
    expect(lines.map((l) => l.type)).toEqual(['user', 'stream_event', 'stream_event', 'stream_event', 'stream_event', 'stream_event', 'stream_event', 'assistant'])
    lines.forEach((l) => expect(l).toMatchObject({ session_id: CHILD, parent_tool_use_id: 'call-7' }))
  })
})
