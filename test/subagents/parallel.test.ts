import { afterEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { costOf, modelInfo } from '../../src/llm/catalog.js'
import { addUsage, zeroUsage, type Usage } from '../../src/llm/messages.js'
import type { SessionEvent } from '../../src/session/events.js'
import { childOf, ofType, PARENT, parentAndChildren } from './support.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

const bodyOf = (r: { body: unknown }) => r.body as { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] }
const systemOf = (r: { body: unknown }) => String(bodyOf(r).messages[0]?.content ?? '')

describe('the task tool', () => {
  it('runs two explore children in parallel, each a linked session, and the parent answers from their results', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'a.txt'), 'alpha\n')
    writeFileSync(join(box.cwd, 'b.txt'), 'beta\n')
    mock = await startMockModel({
      script: [
        {
          system: PARENT,
          toolCalls: [
            { name: 'task', arguments: { description: 'find alpha', prompt: 'Where is alpha?', subagent_type: 'explore' } },
            { name: 'task', arguments: { description: 'find beta', prompt: 'Where is beta?', subagent_type: 'explore' } },
          ],
        },
        // Each child's first answer waits, so both first requests are in before either child goes on.
        { system: childOf('explore'), match: 'Where is alpha?', delayMs: 400, toolCalls: [{ name: 'grep', arguments: { pattern: 'alpha', path: box.cwd } }] },
        { system: childOf('explore'), match: 'Where is beta?', delayMs: 400, toolCalls: [{ name: 'grep', arguments: { pattern: 'beta', path: box.cwd } }] },
        { system: childOf('explore'), match: 'Where is alpha?', text: 'alpha is in a.txt:1' },
        { system: childOf('explore'), match: 'Where is beta?', text: 'beta is in b.txt:1' },
        { system: PARENT, text: 'alpha is in a.txt and beta in b.txt.' },
      ],
    })
    const r = await runCli(['-p', 'find alpha and beta', '--output-format', 'json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).result).toBe('alpha is in a.txt and beta in b.txt.')

    const { parent, children } = parentAndChildren(box.home)
    expect(children).toHaveLength(2)
    const calls = ofType(parent, 'tool/call').map((e) => (e.data as { callId: string }).callId)
    // The two children start at once, so their logs may be listed in either order: take them in call order.
    const callOf = (child: (typeof children)[number]) => (child.header.subagent as { callId: string } | undefined)?.callId ?? ''
    children.sort((a, b) => calls.indexOf(callOf(a)) - calls.indexOf(callOf(b)))
    children.forEach((child, i) => expect(child.header.subagent).toEqual({ parent: parent.header.id, callId: calls[i], agent: 'explore' }))
    const byCall = (a: { callId: string }, b: { callId: string }) => calls.indexOf(a.callId) - calls.indexOf(b.callId)
    expect(ofType(parent, 'subagent/start').map((e) => e.data as { callId: string }).sort(byCall)).toEqual(
      children.map((c, i) => ({ callId: calls[i], child: c.header.id, agent: 'explore', description: i === 0 ? 'find alpha' : 'find beta' })),
    )
    expect(ofType(parent, 'subagent/end').map((e) => (e.data as { outcome: string }).outcome)).toEqual(['completed', 'completed'])
    const results = ofType(parent, 'tool/result').map((e) => e.data as { callId: string; content: { text: string }[] })
    expect(results.map((d) => d.content[0].text)).toEqual(['alpha is in a.txt:1', 'beta is in b.txt:1'])

    // Each subagent/end carries exactly what its child's log adds up to.
    // Ends come in the order the children finished, so each is found by its child's id.
    const ends = ofType(parent, 'subagent/end').map((e) => e.data as { child: string; usage: Usage; cost: number })
    children.forEach((child) => {
      const end = ends.find((e) => e.child === child.header.id) as (typeof ends)[number]
      const answered = ofType(child, 'assistant/message') as SessionEvent<'assistant/message'>[]
      const usage = answered.reduce((sum, e) => addUsage(sum, e.data.usage ?? zeroUsage), zeroUsage)
      const model = modelInfo((ofType(child, 'request/header')[0] as SessionEvent<'request/header'>).data.config.model)
      const cost = answered.reduce((sum, e) => sum + costOf(e.data.usage ?? zeroUsage, model, e.time), 0)
      expect(usage.inputUncached + usage.inputCacheRead).toBeGreaterThan(0)
      expect(end.usage).toEqual(usage)
      expect(end.cost).toBeCloseTo(cost, 12)
    })

    // The children overlapped: both first requests arrived before either child's second.
    const childRequests = mock.requests.filter((q) => systemOf(q).includes(childOf('explore')))
    expect(childRequests).toHaveLength(4)
    const firsts = childRequests.filter((q) => bodyOf(q).messages.every((m) => m.role !== 'tool'))
    expect(firsts).toHaveLength(2)
    expect(Math.max(...firsts.map((q) => q.index))).toBeLessThan(Math.min(...childRequests.filter((q) => !firsts.includes(q)).map((q) => q.index)))
    // An explore child is offered only the reading tools.
    expect(bodyOf(childRequests[0]).tools?.map((t) => t.function.name)).toEqual(['bash', 'glob', 'grep', 'ls', 'read', 'web_fetch'])
  })

  it('gives every child of one type the same system prompt and tools, so its second step hits the cache', async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [
        { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'look', prompt: 'List the files.', subagent_type: 'explore' } }] },
        { system: childOf('explore'), toolCalls: [{ name: 'ls', arguments: { path: box.cwd } }] },
        { system: childOf('explore'), text: 'No files.' },
        { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'look again', prompt: 'List them again.', subagent_type: 'explore' } }] },
        { system: childOf('explore'), text: 'Still none.' },
        { system: PARENT, text: 'Empty.' },
      ],
    })
    const r = await runCli(['-p', 'what is here?'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(0)
    const childRequests = mock.requests.filter((q) => systemOf(q).includes(childOf('explore')))
    expect(childRequests).toHaveLength(3)
    expect(childRequests[1].cacheHitTokens).toBeGreaterThan(0)
    const prefix = (q: { body: unknown }) => JSON.stringify([bodyOf(q).messages[0], bodyOf(q).tools])
    expect(prefix(childRequests[2])).toBe(prefix(childRequests[0]))
  })
})
