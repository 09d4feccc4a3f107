import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { childOf, PARENT } from '../subagents/support.js'

/**
 * Plan mode is absolute (issue 29): no temporary grant — a skill's or a custom command's `allowed-tools`, an agent
 * file's tools — lets a command, a write or an MCP tool that is not read-only run in it. Each case runs `rein -p` in
 * plan mode in a trusted workspace (so the grant would hold in any other mode), and checks what the model was told and
 * that nothing changed on disk. Each has a control run outside plan mode, where the same grant does let the call run.
 */

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

const FIXTURE_SERVER = resolve(import.meta.dirname, '../mcp/fixtures/server.mjs')

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

const skill = (allowed: string) => `---\nname: owned\ndescription: Use for every job.\nallowed-tools: ${allowed}\n---\nDo what you are asked.\n`
const loadSkill: MockResponse = { toolCalls: [{ name: 'skill', arguments: { name: 'owned' } }] }

/** The text of the tool messages of the last request the mock received. */
function toolResults(m: MockModel): string[] {
  const body = m.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }
  return body.messages.filter((msg) => msg.role === 'tool').map((msg) => String(msg.content))
}

async function run(cwd: string, home: string, script: MockResponse[], args: string[]) {
  mock = await startMockModel({ script })
  return runCli(['-p', 'go', '--trust-project', ...args], { cwd, env: cliEnv({ url: mock.url, home }) })
}

function box(): { cwd: string; home: string; marker: string } {
  const made = sandbox()
  const cwd = realpathSync(made.cwd)
  return { cwd, home: made.home, marker: join(cwd, 'x') }
}

describe('in plan mode no temporary grant allows a command, a write or an MCP tool that is not read-only', () => {
  it('a skill with allowed-tools: Bash, loaded in plan mode, does not let the model run touch x', async () => {
    const b = box()
    put(join(b.cwd, '.rein', 'skills', 'owned', 'SKILL.md'), skill('Bash'))
    const r = await run(b.cwd, b.home, [loadSkill, { toolCalls: [{ name: 'bash', arguments: { command: `touch ${b.marker}` } }] }, { text: 'done' }], ['--permission-mode', 'plan'])
    expect(r.code, r.stderr).toBe(0)
    expect(toolResults(mock!).at(-1)).toMatch(/plan mode/i)
    expect(existsSync(b.marker)).toBe(false)
  })

  it('the same skill outside plan mode does let touch x run (the control)', async () => {
    const b = box()
    put(join(b.cwd, '.rein', 'skills', 'owned', 'SKILL.md'), skill('Bash'))
    await run(b.cwd, b.home, [loadSkill, { toolCalls: [{ name: 'bash', arguments: { command: `touch ${b.marker}` } }] }, { text: 'done' }], [])
    expect(existsSync(b.marker)).toBe(true)
  })

  it("a user's own skill with allowed-tools: Bash(touch:*) does not either", async () => {
    const b = box()
    put(join(b.home, 'skills', 'owned', 'SKILL.md'), skill('Bash(touch:*)'))
    await run(b.cwd, b.home, [loadSkill, { toolCalls: [{ name: 'bash', arguments: { command: `touch ${b.marker}` } }] }, { text: 'done' }], ['--permission-mode', 'plan'])
    expect(toolResults(mock!).at(-1)).toMatch(/plan mode/i)
    expect(existsSync(b.marker)).toBe(false)
  })

  for (const [grant, call] of [
    ['Write', { name: 'write', arguments: { file_path: 'x', content: 'owned' } }],
    ['Edit', { name: 'write', arguments: { file_path: 'x', content: 'owned' } }],
    ['Write(/**) Edit(/**)', { name: 'write', arguments: { file_path: 'x', content: 'owned' } }],
  ] as const) {
    it(`a skill with allowed-tools: ${grant} does not let the model write in plan mode`, async () => {
      const b = box()
      put(join(b.cwd, '.rein', 'skills', 'owned', 'SKILL.md'), skill(grant))
      await run(b.cwd, b.home, [loadSkill, { toolCalls: [call] }, { text: 'done' }], ['--permission-mode', 'plan'])
      expect(toolResults(mock!).at(-1)).toMatch(/plan mode/i)
      expect(existsSync(b.marker)).toBe(false)
    })
  }

  it('a skill granting an MCP tool that is not read-only does not let it run in plan mode; the read-only one it grants still runs', async () => {
    const b = box()
    put(join(b.home, 'settings.json'), JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER, 'stdio'] } } }))
    put(join(b.cwd, '.rein', 'skills', 'owned', 'SKILL.md'), skill('mcp__fx__add mcp__fx__echo'))
    await run(
      b.cwd,
      b.home,
      [loadSkill, { toolCalls: [{ name: 'mcp__fx__add', arguments: { a: 2, b: 3 } }, { name: 'mcp__fx__echo', arguments: { text: 'hi' } }] }, { text: 'done' }],
      ['--permission-mode', 'plan'],
    )
    const [add, echo] = toolResults(mock!).slice(-2)
    expect(add).toMatch(/plan mode/i)
    expect(add).not.toBe('5')
    expect(echo).toBe('echo: hi')
  })

  it("a command's allowed-tools: Bash does not let its prompt run touch x in plan mode", async () => {
    const b = box()
    put(join(b.cwd, '.rein', 'commands', 'go.md'), '---\nallowed-tools: Bash\n---\nTouch the marker.\n')
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: `touch ${b.marker}` } }] }, { text: 'done' }] })
    await runCli(['-p', '/go', '--trust-project', '--permission-mode', 'plan'], { cwd: b.cwd, env: cliEnv({ url: mock.url, home: b.home }) })
    expect(toolResults(mock).at(-1)).toMatch(/plan mode/i)
    expect(existsSync(b.marker)).toBe(false)
  })

  it('an agent file listing Bash does not let its subagent run touch x in plan mode', async () => {
    const b = box()
    put(join(b.cwd, '.rein', 'agents', 'doer.md'), '---\nname: doer\ndescription: does things\ntools: Bash, Write\n---\nDo it.\n')
    mock = await startMockModel({
      script: [
        { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'd', prompt: 'p', subagent_type: 'doer' } }] },
        { system: childOf('doer'), toolCalls: [{ name: 'bash', arguments: { command: `touch ${b.marker}` } }, { name: 'write', arguments: { file_path: 'x', content: 'owned' } }] },
        { system: childOf('doer'), text: 'could not' },
        { system: PARENT, text: 'done' },
      ],
    })
    await runCli(['-p', 'go', '--trust-project', '--permission-mode', 'plan'], { cwd: b.cwd, env: cliEnv({ url: mock.url, home: b.home }) })
    const child = mock.requests.map((q) => q.body as { messages: { role: string; content: unknown }[] }).filter((q) => String(q.messages[0].content).includes(childOf('doer')))
    const results = child.at(-1)!.messages.filter((m) => m.role === 'tool').map((m) => String(m.content))
    expect(results).toHaveLength(2)
    for (const result of results) expect(result).toMatch(/plan mode/i)
    expect(existsSync(b.marker)).toBe(false)
  })
})
