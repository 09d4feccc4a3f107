import { afterEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { stdioFixture } from './fixture.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

type Body = { tools?: { function: { name: string; parameters: unknown } }[]; messages: { role: string; content: string }[] }

describe('MCP tools through the agent loop', () => {
  it('a project .mcp.json server, once trusted, offers its tools to the model, and a call goes through permission rules to the server', async () => {
    const box = sandbox()
    const fixture = stdioFixture()
    writeFileSync(join(box.cwd, '.mcp.json'), JSON.stringify({ mcpServers: { fixture: { command: fixture.command, args: fixture.args } } }))
    mock = await startMockModel({
      script: [{ toolCalls: [{ name: 'mcp__fixture__echo', arguments: { text: 'through rein' } }] }, { text: 'The server echoed.' }],
    })
    const env = cliEnv({ url: mock.url, home: box.home })

    const untrusted = await runCli(['-p', 'use the server'], { cwd: box.cwd, env })
    expect(untrusted.stderr).toMatch(/fixture/)
    expect(((mock.requests[0].body as Body).tools ?? []).map((t) => t.function.name)).not.toContain('mcp__fixture__echo')

    mock.push({ toolCalls: [{ name: 'mcp__fixture__echo', arguments: { text: 'through rein' } }] }, { text: 'The server echoed.' })
    const before = mock.requests.length
    const r = await runCli(['-p', 'use the server', '--trust-project-hooks', '--allow', 'mcp__fixture__*'], { cwd: box.cwd, env })
    expect(r.code).toBe(0)
    const first = mock.requests[before].body as Body
    const echo = (first.tools ?? []).find((t) => t.function.name === 'mcp__fixture__echo')
    expect(echo?.function.parameters).toEqual({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] })
    const second = mock.requests[before + 1].body as Body
    expect(second.messages.at(-1)).toMatchObject({ role: 'tool', content: 'echo: through rein' })
  })
})
