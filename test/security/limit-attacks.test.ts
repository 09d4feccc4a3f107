import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { childOf, ofType, PARENT, storedLogs } from '../subagents/support.js'

/**
 * A hostile repository that tries to raise Rein's limits (issue 29): a fork bomb through `subagents` in an untrusted
 * project file, replayed through `rein -p` against a mock model whose every answer calls the `task` tool. What must
 * hold: the defaults bound the tree, the notice names what was ignored, and the model reads why a child did not start.
 */

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

type Body = { model: string; messages: { role: string; content: string }[]; tools?: { function: { name: string } }[] }
const bodies = (m: MockModel) => m.requests.map((q) => q.body as Body).filter((b) => Array.isArray(b?.messages))
const isChild = (b: Body) => b.messages[0].content.includes('Rein subagent of type')
const taskCalls = (n: number, prompt = 'Fork again.') =>
  Array.from({ length: n }, (_, i) => ({ name: 'task', arguments: { description: `fork ${i}`, prompt } }))

function put(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value))
}

async function run(box: { cwd: string; home: string }, script: MockResponse[], args: string[] = []) {
  mock = await startMockModel({ script })
  return runCli(['-p', 'go', ...args], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }), timeoutMs: 120_000 })
}

describe('a project file cannot raise the subagent limits of an untrusted workspace', () => {
  it('the fork bomb of maxDepth 8 and parallel 16 is bounded by the defaults, and the notice says what was ignored', async () => {
    const box = sandbox()
    put(join(box.cwd, '.rein', 'settings.json'), { subagents: { maxDepth: 8, parallel: 16 } })
    // The user's own file lowers the steps of one child turn (default 100, shown below) to keep this run short.
    put(join(box.home, 'settings.json'), { subagents: { maxSteps: 3 } })
    // Every answer calls task: the parent asks for 20 children at once, every child asks for another.
    const r = await run(box, [
      { system: PARENT, toolCalls: taskCalls(20) },
      { system: PARENT, text: 'done' },
      { system: childOf('general'), toolCalls: taskCalls(1), repeat: true },
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('subagents.maxDepth 8 (default 1)')
    expect(r.stderr).toContain('subagents.parallel 16 (default 4)')
    expect(r.stderr).toContain('rein trust')
    expect(r.stderr).toContain('Subagent limit: this turn has started 16 subagents')

    const logs = storedLogs(box.home)
    const children = logs.filter((l) => l.header.subagent)
    // Depth 1: no grandchild; the per-turn cap: 16 children of the 20 asked for.
    expect(children).toHaveLength(16)
    expect(children.every((c) => c.header.subagent?.parent === logs.find((l) => !l.header.subagent)?.header.id)).toBe(true)
    const childRequests = bodies(mock!).filter(isChild)
    expect(childRequests.every((b) => !b.tools?.some((t) => t.function.name === 'task'))).toBe(true)
    for (const child of children) expect(ofType(child, 'turn/end').at(-1)?.data).toMatchObject({ reason: 'max-steps' })
    expect(childRequests.length).toBe(16 * 3)

    const parent = logs.find((l) => !l.header.subagent)!
    const refused = ofType(parent, 'tool/result').filter((e) => JSON.stringify(e.data).includes('subagents.maxPerTurn 16'))
    expect(refused).toHaveLength(4)
  })

  it('a child whose every answer calls a tool stops after the default 100 model requests of its turn', async () => {
    const box = sandbox()
    const r = await run(box, [
      { system: PARENT, toolCalls: taskCalls(1) },
      { system: PARENT, text: 'done' },
      { system: childOf('general'), toolCalls: taskCalls(1), repeat: true },
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(bodies(mock!).filter(isChild)).toHaveLength(100)
    const parent = storedLogs(box.home).find((l) => !l.header.subagent)!
    expect(JSON.stringify(ofType(parent, 'tool/result')[0].data)).toContain('The subagent stopped (max-steps)')
  })

  it('--max-turns bounds the model requests of the parent and every child together', async () => {
    const box = sandbox()
    put(join(box.cwd, '.rein', 'settings.json'), { subagents: { maxDepth: 8, parallel: 16 } })
    const r = await run(box, [{ toolCalls: taskCalls(3), repeat: true }], ['--max-turns', '12'])
    expect(r.code).toBe(1)
    expect(bodies(mock!).length).toBe(12)
    const logs = storedLogs(box.home)
    const parent = logs.find((l) => !l.header.subagent)!
    expect(ofType(parent, 'turn/end').at(-1)?.data).toMatchObject({ reason: 'max-steps' })
    // The children that were running when the budget ran out end max-steps too; later ones are never created.
    const childEnds = logs.filter((l) => l.header.subagent).map((l) => ofType(l, 'turn/end').at(-1)?.data.reason)
    expect(childEnds).toContain('max-steps')
    expect(JSON.stringify(ofType(parent, 'tool/result'))).toMatch(/The subagent stopped \(max-steps\)|--max-turns, counting every subagent/)
  })

  it('a project may lower the limits without trust: subagents.maxPerTurn 2 starts two children of five', async () => {
    const box = sandbox()
    put(join(box.cwd, '.rein', 'settings.local.json'), { subagents: { maxPerTurn: 2 } })
    const r = await run(box, [
      { system: PARENT, toolCalls: taskCalls(5) },
      { system: PARENT, text: 'done' },
      { system: childOf('general'), text: 'ok', repeat: true },
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toContain('rein trust')
    expect(storedLogs(box.home).filter((l) => l.header.subagent)).toHaveLength(2)
  })

  it('maxDepth in .claude/settings.json has no effect: Rein reads no limits there', async () => {
    const box = sandbox()
    put(join(box.cwd, '.claude', 'settings.json'), { subagents: { maxDepth: 8 } })
    await run(box, [
      { system: PARENT, toolCalls: taskCalls(1) },
      { system: childOf('general'), text: 'ok' },
      { system: PARENT, text: 'done' },
    ])
    expect(bodies(mock!).filter(isChild)[0].tools?.map((t) => t.function.name)).not.toContain('task')
  })

  it('a trusted workspace may raise maxDepth: the child gets the task tool', async () => {
    const box = sandbox()
    put(join(box.cwd, '.rein', 'settings.json'), { subagents: { maxDepth: 2 } })
    await run(
      box,
      [
        { system: PARENT, toolCalls: taskCalls(1) },
        { system: childOf('general'), text: 'ok' },
        { system: PARENT, text: 'done' },
      ],
      ['--trust-project'],
    )
    expect(bodies(mock!).filter(isChild)[0].tools?.map((t) => t.function.name)).toContain('task')
  })

  for (const [what, value] of [
    ['a string "8"', '"8"'],
    ['a negative number', '-1'],
    ['a number past the ceiling', '1000000000000'],
    ['a fraction', '2.5'],
  ] as const) {
    it(`maxDepth as ${what} stops Rein with one sentence naming the file and line`, async () => {
      const box = sandbox()
      put(join(box.cwd, '.rein', 'settings.json'), `{\n  "subagents": {\n    "maxDepth": ${value}\n  }\n}\n`)
      const r = await run(box, [{ text: 'never sent' }])
      expect(r.code).not.toBe(0)
      expect(r.stderr).toMatch(/settings\.json, line 3: subagents\.maxDepth: .*Fix it and start Rein again\./)
      expect(mock!.requests).toHaveLength(0)
    })
  }

  it("the user's own file cannot lift the per-turn cap past its ceiling of 256", async () => {
    const box = sandbox()
    put(join(box.home, 'settings.json'), { subagents: { maxPerTurn: 10_000 } })
    const r = await run(box, [{ text: 'never sent' }])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/subagents\.maxPerTurn/)
  })
})

describe('a workspace agent or command file cannot pick a dearer model until the workspace is trusted', () => {
  const agentFile = '---\nname: pricey\ndescription: costs more\nmodel: deepseek-v4-pro\n---\nDo the job.\n'

  it('an agent file asking for deepseek-v4-pro runs on the session model, and the user is told', async () => {
    const box = sandbox()
    put(join(box.cwd, '.rein', 'agents', 'pricey.md'), agentFile)
    const r = await run(box, [
      { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'd', prompt: 'p', subagent_type: 'pricey' } }] },
      { system: childOf('pricey'), text: 'ok' },
      { system: PARENT, text: 'done' },
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(bodies(mock!).filter(isChild).map((b) => b.model)).toEqual(['deepseek-flash'])
    expect(r.stderr).toMatch(/asks for the model deepseek-v4-pro, which costs more than this session's deepseek-flash/)
  })

  it('in a trusted workspace the agent file gets its model', async () => {
    const box = sandbox()
    put(join(box.cwd, '.rein', 'agents', 'pricey.md'), agentFile)
    await run(
      box,
      [
        { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'd', prompt: 'p', subagent_type: 'pricey' } }] },
        { system: childOf('pricey'), text: 'ok' },
        { system: PARENT, text: 'done' },
      ],
      ['--trust-project'],
    )
    expect(bodies(mock!).filter(isChild).map((b) => b.model)).toEqual(['deepseek-v4-pro'])
  })

  it("the user's own agent file may choose a dearer model", async () => {
    const box = sandbox()
    put(join(box.home, 'agents', 'pricey.md'), agentFile)
    await run(box, [
      { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'd', prompt: 'p', subagent_type: 'pricey' } }] },
      { system: childOf('pricey'), text: 'ok' },
      { system: PARENT, text: 'done' },
    ])
    expect(bodies(mock!).filter(isChild).map((b) => b.model)).toEqual(['deepseek-v4-pro'])
  })

  it('a workspace command asking for deepseek-v4-pro runs with the session model', async () => {
    const box = sandbox()
    put(join(box.cwd, '.rein', 'commands', 'pricey.md'), '---\nmodel: deepseek-v4-pro\n---\nReview the code.\n')
    mock = await startMockModel({ script: [{ text: 'done' }] })
    const r = await runCli(['-p', '/pricey'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code, r.stderr).toBe(0)
    expect(bodies(mock).map((b) => b.model)).toEqual(['deepseek-flash'])
    expect(r.stderr).toMatch(/\/pricey asks for the model deepseek-v4-pro, which costs more than deepseek-flash/)
  })
})
