import { afterEach, describe, expect, it } from 'vitest'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Pool } from '../../src/subagents/pool.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { childOf, ofType, PARENT, storedLogs } from './support.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

type Body = { messages: { content: string }[]; tools: { function: { name: string } }[] }
const childRequests = (m: MockModel) => m.requests.map((q) => q.body as Body).filter((b) => b.messages[0].content.includes(childOf('general')))

describe('the depth limit', () => {
  it('by default a child has no task tool, so children cannot start children', async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [
        { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'd', prompt: 'p' } }] },
        { system: childOf('general'), text: 'ok' },
        { system: PARENT, text: 'done' },
      ],
    })
    expect((await runCli(['-p', 'go'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })).code).toBe(0)
    expect(childRequests(mock)[0].tools.map((t) => t.function.name)).not.toContain('task')
  })

  it('subagents.maxDepth 2 lets a child start a grandchild, linked to the child', async () => {
    const box = sandbox()
    mkdirSync(join(box.home), { recursive: true })
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
    expect((await runCli(['-p', 'go'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })).code).toBe(0)
    const requests = childRequests(mock)
    expect(requests[0].tools.map((t) => t.function.name)).toContain('task')
    // The grandchild is at the limit: no task tool.
    expect(requests[1].tools.map((t) => t.function.name)).not.toContain('task')
    const logs = storedLogs(box.home)
    const outer = logs.find((l) => l.header.subagent && ofType(l, 'subagent/start').length === 1)
    const inner = logs.find((l) => l.header.subagent?.parent === outer?.header.id)
    expect(inner?.header.subagent?.agent).toBe('general')
    expect(ofType(outer!, 'tool/result')[0].data).toMatchObject({ content: [{ text: 'inner done' }] })
  })

  it('a Task deny rule turns subagents off: the call is refused and no child session is made', async () => {
    const box = sandbox()
    writeFileSync(join(box.home, 'settings.json'), JSON.stringify({ permissions: { deny: ['Task'] } }))
    mock = await startMockModel({
      script: [
        { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'd', prompt: 'p' } }] },
        { system: PARENT, text: 'did it myself' },
      ],
    })
    expect((await runCli(['-p', 'go'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })).code).toBe(0)
    const logs = storedLogs(box.home)
    expect(logs).toHaveLength(1)
    expect(ofType(logs[0], 'tool/result')[0].data).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^Error: permission denied: .*Task/) }] })
  })

  it('refuses a settings value that is not a whole number', async () => {
    const box = sandbox()
    writeFileSync(join(box.home, 'settings.json'), JSON.stringify({ subagents: { parallel: 0 } }))
    const r = await runCli(['-p', 'go'], { cwd: box.cwd, env: cliEnv({ url: 'http://127.0.0.1:9', home: box.home }) })
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/subagents\.parallel/)
  })
})

describe('the subagent pool', () => {
  it('lets at most its width hold a slot, wakes waiters in order, and drops a waiter whose signal aborts', async () => {
    const pool = new Pool(1)
    const order: string[] = []
    const first = await pool.acquire(new AbortController().signal)
    const abort = new AbortController()
    const cancelled = pool.acquire(abort.signal).then(
      () => order.push('cancelled got a slot'),
      () => order.push('cancelled gave up'),
    )
    const second = pool.acquire(new AbortController().signal).then((release) => (order.push('second'), release))
    abort.abort()
    await cancelled
    first()
    ;(await second)()
    expect(order).toEqual(['cancelled gave up', 'second'])
  })
})
