import { afterEach, describe, expect, it } from 'vitest'
import { McpManager, type McpServerConfig } from '../../src/mcp/index.js'
import { eventually, startHttpFixture, toolContext } from './fixture.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function connected(options: ConstructorParameters<typeof McpManager>[1] = {}) {
  const fixture = await startHttpFixture()
  cleanups.push(fixture.stop)
  const config: McpServerConfig = { name: 'remote', type: 'http', url: fixture.url, headers: { 'x-test': 'yes' } }
  const manager = new McpManager([config], { onNotice: () => {}, ...options })
  cleanups.push(() => manager.close())
  await manager.start()
  const call = (name: string, args: unknown) => {
    const tool = manager.tools().find((t) => t.name === name)
    if (!tool) throw new Error(`no tool ${name}`)
    return tool.run(tool.schema.parse(args), toolContext())
  }
  return { fixture, manager, call }
}

describe('an MCP server over streamable HTTP on loopback', () => {
  it('lists its tools under the server name', async () => {
    const { manager } = await connected()
    expect(manager.status()).toEqual([expect.objectContaining({ name: 'remote', state: 'connected', transport: 'http' })])
    expect(manager.tools().map((t) => t.name)).toContain('mcp__remote__echo')
  })

  it('calls a tool and returns its text', async () => {
    const { call } = await connected()
    expect(await call('mcp__remote__echo', { text: 'over http' })).toEqual({ content: [{ type: 'text', text: 'echo: over http' }] })
  })

  it('returns a failing tool as an error result', async () => {
    const { call } = await connected()
    expect(await call('mcp__remote__fail', { reason: 'no' })).toEqual({ content: [{ type: 'text', text: 'Error: could not comply: no' }], isError: true })
  })

  it('answers a call past its timeout with an error result', async () => {
    const { call } = await connected({ timeoutMs: 300 })
    const output = await call('mcp__remote__slow', { ms: 20_000 })
    expect(output).toEqual({ content: [{ type: 'text', text: expect.stringContaining('did not finish within 300 ms') }], isError: true })
    expect(await call('mcp__remote__echo', { text: 'after' })).toEqual({ content: [{ type: 'text', text: 'echo: after' }] })
  })

  it('refreshes its tools when the server announces tools/list_changed', async () => {
    const { manager, call } = await connected()
    const changed = new Promise<void>((resolve) => manager.onToolsChanged(resolve))
    await call('mcp__remote__grow', { name: 'later' })
    await changed
    expect(await call('mcp__remote__later', {})).toEqual({ content: [{ type: 'text', text: 'later ran' }] })
  })

  it('answers a call whose server dies mid-call with an error result and reports the server once', async () => {
    const notices: string[] = []
    const { fixture, manager, call } = await connected({
      timeoutMs: 10_000,
      restart: { initialDelayMs: 50, maxAttempts: 2 },
      onNotice: (_level, message) => notices.push(message),
    })
    const pending = call('mcp__remote__slow', { ms: 20_000 })
    setTimeout(() => fixture.process.kill('SIGKILL'), 200)
    const output = await pending
    expect(output.isError).toBe(true)
    expect(output.content[0]).toEqual({ type: 'text', text: expect.stringMatching(/^Error: MCP server "remote" (stopped|could not be reached)/) })
    await eventually(() => manager.status()[0].state === 'failed', 'the restart budget to run out')
    expect(manager.tools()).toEqual([])
    expect(notices).toHaveLength(1)
    expect(notices[0]).toMatch(/^MCP server "remote" /)
  })

  it('reports a server that is not listening and goes on', async () => {
    const notices: string[] = []
    const manager = new McpManager([{ name: 'nobody', type: 'http', url: 'http://127.0.0.1:9/mcp' }], {
      restart: { maxAttempts: 0 },
      onNotice: (_level, message) => notices.push(message),
    })
    cleanups.push(() => manager.close())
    await manager.start()
    expect(manager.status()[0].state).toBe('failed')
    expect(notices).toEqual([expect.stringMatching(/^MCP server "nobody" failed to start/)])
  })
})
