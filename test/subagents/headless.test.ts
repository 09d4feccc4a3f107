import { afterEach, describe, expect, it } from 'vitest'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { costOf, modelInfo } from '../../src/llm/catalog.js'
import { zeroUsage } from '../../src/llm/messages.js'
import type { SessionEvent } from '../../src/session/events.js'
import type { ResultLine } from '../../src/cli/print/result.js'
import { childOf, ofType, PARENT, parentAndChildren, type StoredLog } from './support.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

type Line = Record<string, unknown> & { type: string; session_id?: string; parent_tool_use_id?: string | null }
const linesOf = (stdout: string): Line[] => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line)
/** The run's closing `result` line (`--output-format stream-json` ends with it). */
const resultOf = (stdout: string): ResultLine => JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as ResultLine

/** What one log's responses cost, each priced at its own time with the model of its request header. */
function logCost(log: StoredLog): number {
  const answered = ofType(log, 'assistant/message') as SessionEvent<'assistant/message'>[]
  const model = modelInfo((ofType(log, 'request/header')[0] as SessionEvent<'request/header'>).data.config.model)
  return answered.reduce((sum, e) => sum + costOf(e.data.usage ?? zeroUsage, model, e.time), 0)
}

const callIds = (log: StoredLog): string[] => ofType(log, 'tool/call').map((e) => (e.data as { callId: string }).callId)

/** A parent that runs two explore children at once; each child greps, then answers. */
function twoExplorers(cwd: string) {
  writeFileSync(join(cwd, 'a.txt'), 'alpha\n')
  writeFileSync(join(cwd, 'b.txt'), 'beta\n')
  return [
    {
      system: PARENT,
      toolCalls: [
        { name: 'task', arguments: { description: 'find alpha', prompt: 'Where is alpha?', subagent_type: 'explore' } },
        { name: 'task', arguments: { description: 'find beta', prompt: 'Where is beta?', subagent_type: 'explore' } },
      ],
    },
    // Each child's first answer waits, so both children are running before either goes on: their lines interleave.
    { system: childOf('explore'), match: 'Where is alpha?', delayMs: 300, toolCalls: [{ name: 'grep', arguments: { pattern: 'alpha', path: cwd } }] },
    { system: childOf('explore'), match: 'Where is beta?', delayMs: 300, toolCalls: [{ name: 'grep', arguments: { pattern: 'beta', path: cwd } }] },
    { system: childOf('explore'), match: 'Where is alpha?', text: 'alpha is in a.txt:1' },
    { system: childOf('explore'), match: 'Where is beta?', text: 'beta is in b.txt:1' },
    { system: PARENT, text: 'alpha is in a.txt and beta in b.txt.' },
  ]
}

describe('rein -p with subagents', () => {
  it("stream-json prints each child's lines with the parent's task call id and the child's own session id", async () => {
    const box = sandbox()
    mock = await startMockModel({ script: twoExplorers(box.cwd) })
    const r = await runCli(['-p', 'find alpha and beta', '--output-format', 'stream-json', '--include-partial-messages'], {
      cwd: box.cwd,
      env: cliEnv({ url: mock.url, home: box.home }),
    })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const lines = linesOf(r.stdout)
    const { parent, children } = parentAndChildren(box.home)
    expect(children).toHaveLength(2)
    const calls = callIds(parent)
    const parentId = parent.header.id

    // The session's own lines: parent_tool_use_id null (where the type has it), and one result, last.
    const own = lines.filter((l) => l.session_id === parentId)
    own.filter((l) => 'parent_tool_use_id' in l).forEach((l) => expect(l.parent_tool_use_id).toBeNull())
    expect(lines.filter((l) => l.type === 'result')).toEqual([lines[lines.length - 1]])
    expect(lines[lines.length - 1].session_id).toBe(parentId)

    children.forEach((child, i) => {
      const mine = lines.filter((l) => l.session_id === child.header.id)
      // Every child line names the task call that runs it; a child prints no system or result line.
      mine.forEach((l) => expect(l.parent_tool_use_id).toBe(calls[i]))
      expect(new Set(mine.map((l) => l.type))).toEqual(new Set(['user', 'assistant', 'stream_event']))
      // Its prompt, its two responses, its grep result: in its own log's order.
      const messages = mine.filter((l) => l.type !== 'stream_event') as { type: string; message: { content: { type: string; text?: string }[] } }[]
      expect(messages.map((l) => `${l.type}:${l.message.content.map((b) => b.type).join(',')}`)).toEqual([
        'user:text',
        'assistant:tool_use',
        'user:tool_result',
        'assistant:text',
      ])
      expect(messages[0].message.content[0].text).toBe(i === 0 ? 'Where is alpha?' : 'Where is beta?')
      expect(messages[3].message.content[0].text).toBe(i === 0 ? 'alpha is in a.txt:1' : 'beta is in b.txt:1')
      // Each streamed child response opens and closes, with the message id of its assistant line.
      const starts = mine.filter((l) => l.type === 'stream_event' && (l.event as { type: string }).type === 'message_start')
      const ids = (mine.filter((l) => l.type === 'assistant') as unknown as { message: { id: string } }[]).map((l) => l.message.id)
      expect(starts.map((l) => (l.event as { message: { id: string } }).message.id)).toEqual(ids)
      expect(mine.filter((l) => l.type === 'stream_event' && (l.event as { type: string }).type === 'message_stop')).toHaveLength(2)
    })
    // Only the parent and the two children print.
    expect(new Set(lines.map((l) => l.session_id))).toEqual(new Set([parentId, ...children.map((c) => c.header.id)]))
    // Each child's lines come after the parent's task call and before the parent's line with the task results.
    const callLine = lines.findIndex((l) => l.type === 'assistant' && l.session_id === parentId)
    const resultsLine = lines.findIndex((l) => l.type === 'user' && l.session_id === parentId && JSON.stringify(l).includes('tool_result'))
    lines.forEach((l, i) => {
      if (l.session_id !== parentId) expect(i > callLine && i < resultsLine).toBe(true)
    })

    const result = resultOf(r.stdout)
    expect(result.rein.subagents.count).toBe(2)
    expect(result.total_cost_usd).toBeCloseTo(logCost(parent) + logCost(children[0]) + logCost(children[1]), 6)
  })

  it("json's result counts the children: total cost is the sum of all three logs, children's usage and cost apart, their model in modelUsage", async () => {
    const box = sandbox()
    mkdirSync(join(box.home, 'agents'), { recursive: true })
    // A custom type on another model than the parent's, so modelUsage must name both. It is the user's own file: a
    // workspace's may not pick a dearer model until trusted (test/security/limit-attacks.test.ts).
    writeFileSync(
      join(box.home, 'agents', 'finder.md'),
      '---\nname: finder\ndescription: Finds a word\ntools: Grep\nmodel: deepseek-v4-pro\n---\nYou find words and say where they are.\n',
    )
    const script = twoExplorers(box.cwd).map((step) => (step.system === childOf('explore') ? { ...step, system: childOf('finder') } : step))
    const first = script[0] as { toolCalls: { arguments: { subagent_type: string } }[] }
    first.toolCalls.forEach((c) => (c.arguments.subagent_type = 'finder'))
    mock = await startMockModel({ script })
    const r = await runCli(['-p', 'find alpha and beta', '--output-format', 'json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const result = JSON.parse(r.stdout) as {
      total_cost_usd: number
      usage: { input_tokens: number; cache_read_input_tokens: number; output_tokens: number }
      modelUsage: Record<string, { costUSD: number; inputTokens: number; cacheReadInputTokens: number; outputTokens: number; contextWindow: number }>
      rein: { subagents: { count: number; usage: { input_tokens: number; cache_read_input_tokens: number; output_tokens: number }; total_cost_usd: number } }
    }
    const { parent, children } = parentAndChildren(box.home)
    const parentModel = (ofType(parent, 'request/header')[0] as SessionEvent<'request/header'>).data.config.model
    children.forEach((c) => expect((ofType(c, 'request/header')[0] as SessionEvent<'request/header'>).data.config.model).toBe('deepseek-v4-pro'))
    expect(parentModel).not.toBe('deepseek-v4-pro')

    const childCost = logCost(children[0]) + logCost(children[1])
    expect(childCost).toBeGreaterThan(0)
    expect(result.total_cost_usd).toBeCloseTo(logCost(parent) + childCost, 6)
    expect(result.rein.subagents.count).toBe(2)
    expect(result.rein.subagents.total_cost_usd).toBeCloseTo(childCost, 6)

    // The children's tokens are apart from the session's own `usage`, which counts the parent's responses only.
    const tokens = (log: StoredLog) =>
      (ofType(log, 'assistant/message') as SessionEvent<'assistant/message'>[]).reduce(
        (sum, e) => ({ input: sum.input + (e.data.usage?.inputUncached ?? 0), cached: sum.cached + (e.data.usage?.inputCacheRead ?? 0), output: sum.output + (e.data.usage?.output ?? 0) }),
        { input: 0, cached: 0, output: 0 },
      )
    const own = tokens(parent)
    const kids = [tokens(children[0]), tokens(children[1])].reduce((a, b) => ({ input: a.input + b.input, cached: a.cached + b.cached, output: a.output + b.output }))
    expect(result.usage).toMatchObject({ input_tokens: own.input, cache_read_input_tokens: own.cached, output_tokens: own.output })
    expect(result.rein.subagents.usage).toMatchObject({ input_tokens: kids.input, cache_read_input_tokens: kids.cached, output_tokens: kids.output })

    // modelUsage: the parent's model with its own figures, the children's model with theirs.
    expect(Object.keys(result.modelUsage).sort()).toEqual([parentModel, 'deepseek-v4-pro'].sort())
    expect(result.modelUsage['deepseek-v4-pro']).toMatchObject({ inputTokens: kids.input, cacheReadInputTokens: kids.cached, outputTokens: kids.output })
    expect(result.modelUsage['deepseek-v4-pro'].costUSD).toBeCloseTo(childCost, 6)
    expect(result.modelUsage['deepseek-v4-pro'].contextWindow).toBe(modelInfo('deepseek-v4-pro').contextWindow)
    expect(result.modelUsage[parentModel].costUSD).toBeCloseTo(logCost(parent), 6)
  })

  it("a grandchild's lines name the child's task call, and the result's cost counts every level once", async () => {
    const box = sandbox()
    writeFileSync(join(box.home, 'settings.json'), JSON.stringify({ subagents: { maxDepth: 2 } }))
    mock = await startMockModel({
      script: [
        { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'outer', prompt: 'Outer job.' } }] },
        { system: childOf('general'), match: 'Outer job.', toolCalls: [{ name: 'task', arguments: { description: 'inner', prompt: 'Inner job.' } }] },
        { system: childOf('general'), match: 'Inner job.', text: 'inner done' },
        { system: childOf('general'), match: 'Outer job.', text: 'outer done' },
        { system: PARENT, text: 'all done' },
      ],
    })
    const r = await runCli(['-p', 'go', '--output-format', 'stream-json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const lines = linesOf(r.stdout)
    const { parent, children } = parentAndChildren(box.home)
    const outer = children.find((c) => c.header.subagent?.parent === parent.header.id) as StoredLog
    const inner = children.find((c) => c.header.subagent?.parent === outer.header.id) as StoredLog
    lines.filter((l) => l.session_id === outer.header.id).forEach((l) => expect(l.parent_tool_use_id).toBe(callIds(parent)[0]))
    const innerLines = lines.filter((l) => l.session_id === inner.header.id)
    expect(innerLines.map((l) => l.type)).toEqual(['user', 'assistant'])
    innerLines.forEach((l) => expect(l.parent_tool_use_id).toBe(callIds(outer)[0]))

    const result = resultOf(r.stdout)
    // One direct child, whose end includes the grandchild's cost.
    expect(result.rein.subagents.count).toBe(1)
    expect(result.rein.subagents.total_cost_usd).toBeCloseTo(logCost(outer) + logCost(inner), 6)
    expect(result.total_cost_usd).toBeCloseTo(logCost(parent) + logCost(outer) + logCost(inner), 6)
  })

  it("a child whose model fails still shows its prompt under the task call, and the run ends with the parent's answer and the child counted", async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [
        { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'doomed', prompt: 'Fail please.', subagent_type: 'explore' } }] },
        { system: childOf('explore'), error: { status: 400, body: { error: { message: 'The request is invalid.', type: 'invalid_request_error' } } } },
        { system: PARENT, text: 'The helper failed; nothing found.' },
      ],
    })
    const r = await runCli(['-p', 'go', '--output-format', 'stream-json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(0)
    const lines = linesOf(r.stdout)
    const { parent, children } = parentAndChildren(box.home)
    const mine = lines.filter((l) => l.session_id === children[0].header.id)
    expect(mine.map((l) => l.type)).toEqual(['user'])
    expect(mine[0].parent_tool_use_id).toBe(callIds(parent)[0])
    // The parent's task result says why, in one sentence, and the parent goes on.
    const results = lines.find((l) => l.type === 'user' && l.session_id === parent.header.id && JSON.stringify(l).includes('tool_result'))
    expect(JSON.stringify(results)).toContain('The subagent stopped (error)')
    expect(lines[lines.length - 1]).toMatchObject({ type: 'result', subtype: 'success', result: 'The helper failed; nothing found.', rein: { subagents: { count: 1, total_cost_usd: 0 } } })
  })

  it("events tags a child's lines with its session id and the task call id, and leaves the session's own lines as they were", async () => {
    const box = sandbox()
    mock = await startMockModel({ script: twoExplorers(box.cwd) })
    const r = await runCli(['-p', 'find alpha and beta', '--output-format', 'events'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const lines = linesOf(r.stdout)
    const { parent, children } = parentAndChildren(box.home)
    const calls = callIds(parent)
    // The untagged event lines are exactly the parent's log from this run; each child's tagged ones are exactly its log.
    const untagged = lines.filter((l) => l.type === 'event' && !('session_id' in l)).map((l) => l.event)
    expect(untagged).toEqual(parent.events.slice(parent.events.length - untagged.length))
    expect(untagged.some((e) => (e as { type: string }).type === 'subagent/end')).toBe(true)
    children.forEach((child, i) => {
      const mine = lines.filter((l) => l.session_id === child.header.id)
      mine.forEach((l) => expect(l.parent_tool_use_id).toBe(calls[i]))
      expect(mine.filter((l) => l.type === 'event').map((l) => l.event)).toEqual(child.events)
      expect(mine.some((l) => l.type === 'text-delta')).toBe(true)
    })
    expect(lines[lines.length - 1]).toMatchObject({ type: 'result', session_id: parent.header.id, rein: { subagents: { count: 2 } } })
  })
})
