import { mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { McpManager, type McpAgentTool } from '../../src/mcp/index.js'
import { eventually, stdioFixture, toolContext } from './fixture.js'

const managers: McpManager[] = []
function manager(...args: ConstructorParameters<typeof McpManager>): McpManager {
  const created = new McpManager(...args)
  managers.push(created)
  return created
}
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()))
})

function tool(m: McpManager, name: string): McpAgentTool {
  const found = m.tools().find((t) => t.name === name)
  if (!found) throw new Error(`no tool ${name} among ${m.tools().map((t) => t.name).join(', ')}`)
  return found as McpAgentTool
}

async function call(m: McpManager, name: string, args: unknown, signal?: AbortSignal) {
  const t = tool(m, name)
  const parsed = t.schema.parse(args)
  return t.run(parsed, toolContext(signal))
}

describe('an MCP server over stdio', () => {
  // Tests that only list and call leave the server as they found it, so they share one connection.
  let shared: McpManager
  beforeAll(async () => {
    shared = new McpManager([stdioFixture()], { onNotice: () => {} })
    await shared.start()
  })
  afterAll(() => shared.close())

  it('offers its tools as mcp__<server>__<tool>, sorted, with the server schema for the model', async () => {
    const m = shared
    const names = m.tools().map((t) => t.name)
    expect(names).toEqual([...names].sort())
    expect(names).toContain('mcp__fixture__echo')
    expect(names).toContain('mcp__fixture__add')
    const echo = tool(m, 'mcp__fixture__echo')
    expect(echo.parameters).toEqual({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] })
    expect(echo.description).toBe('Echoes the text back.')
    expect(echo.kind).toBe('other')
    expect(m.status()).toEqual([
      expect.objectContaining({ name: 'fixture', state: 'connected', transport: 'stdio', tools: expect.arrayContaining(['mcp__fixture__echo']) }),
    ])
  })

  it('marks a tool read-only only when the server annotates it readOnlyHint', async () => {
    const m = shared
    expect(tool(m, 'mcp__fixture__echo').readOnly).toBe(true)
    expect(tool(m, 'mcp__fixture__add').readOnly).toBe(false)
  })

  it('validates arguments against the server schema before the call', async () => {
    const m = shared
    const add = tool(m, 'mcp__fixture__add')
    expect(add.schema.safeParse({ a: 1, b: 2 }).success).toBe(true)
    expect(add.schema.safeParse({ a: 'one', b: 2 }).success).toBe(false)
    expect(add.schema.safeParse({ a: 1 }).success).toBe(false)
  })

  it('returns a call result as text blocks', async () => {
    const m = shared
    expect(await call(m, 'mcp__fixture__add', { a: 2, b: 40 })).toEqual({ content: [{ type: 'text', text: '42' }] })
  })

  it('returns an isError result as an error result the model can read', async () => {
    const m = shared
    expect(await call(m, 'mcp__fixture__fail', { reason: 'disk full' })).toEqual({
      content: [{ type: 'text', text: 'Error: could not comply: disk full' }],
      isError: true,
    })
  })

  it('passes images through and turns resource links and text resources into text', async () => {
    const m = shared
    const output = await call(m, 'mcp__fixture__picture', {})
    expect(output.isError).toBeFalsy()
    expect(output.content[0]).toEqual({ type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBOR/) })
    expect(output.content[1]).toEqual({ type: 'text', text: 'Resource link: report.txt <file:///tmp/report.txt> (text/plain)' })
    expect(output.content[2]).toEqual({ type: 'text', text: 'Resource <memo://note>:\na note' })
  })

  it('starts the server in the session directory with the configured environment', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'rein-mcp-cwd-')))
    const m = manager([stdioFixture('fixture', [], { FIXTURE_GREETING: 'hello' })], { cwd, onNotice: () => {} })
    await m.start()
    expect(await call(m, 'mcp__fixture__whoami', {})).toEqual({ content: [{ type: 'text', text: `hello from ${cwd}` }] })
  })

  it('answers a call past its timeout with an error result and keeps the server usable', async () => {
    const m = manager([stdioFixture()], { timeoutMs: 300, onNotice: () => {} })
    await m.start()
    const output = await call(m, 'mcp__fixture__slow', { ms: 20_000 })
    expect(output.isError).toBe(true)
    expect(output.content[0]).toEqual({ type: 'text', text: expect.stringContaining('did not finish within 300 ms') })
    expect(await call(m, 'mcp__fixture__echo', { text: 'still here' })).toEqual({ content: [{ type: 'text', text: 'echo: still here' }] })
  })

  it('answers a cancelled call with an error result', async () => {
    const m = shared
    const controller = new AbortController()
    const pending = call(m, 'mcp__fixture__slow', { ms: 20_000 }, controller.signal)
    setTimeout(() => controller.abort(), 100)
    const output = await pending
    expect(output).toEqual({ content: [{ type: 'text', text: expect.stringContaining('cancelled by the user') }], isError: true })
  })

  it('survives a server crash mid-call: error result, one notice with the stderr tail, tools gone, then restarted', async () => {
    const notices: string[] = []
    const m = manager([stdioFixture()], { restart: { initialDelayMs: 100 }, onNotice: (_level, message) => notices.push(message) })
    await m.start()
    let changes = 0
    m.onToolsChanged(() => changes++)
    const output = await call(m, 'mcp__fixture__crash', {})
    expect(output.isError).toBe(true)
    expect(output.content[0]).toEqual({ type: 'text', text: expect.stringContaining('stopped while running "crash"') })
    expect(notices).toHaveLength(1)
    expect(notices[0]).toContain('MCP server "fixture"')
    expect(notices[0]).toContain('fatal: crash requested')
    expect(changes).toBeGreaterThanOrEqual(1)
    expect(m.status()[0].state).toBe('restarting')
    expect(m.tools()).toEqual([])
    await eventually(() => m.status()[0].state === 'connected', 'the server to restart')
    expect(await call(m, 'mcp__fixture__echo', { text: 'back' })).toEqual({ content: [{ type: 'text', text: 'echo: back' }] })
    expect(notices.slice(1)).toEqual(['MCP server "fixture" is connected again.'])
  })

  it('reports a server that fails to start once, with its stderr tail, and gives up after the restart budget', async () => {
    const notices: { level: string; message: string }[] = []
    const m = manager([stdioFixture('broken', ['--fail-on-start']), stdioFixture('good')], {
      restart: { initialDelayMs: 20, maxAttempts: 1 },
      onNotice: (level, message) => notices.push({ level, message }),
    })
    await m.start()
    expect(m.tools().every((t) => t.name.startsWith('mcp__good__'))).toBe(true)
    expect(m.tools().length).toBeGreaterThan(0)
    await eventually(() => m.status()[0].state === 'failed', 'the restart budget to run out')
    expect(notices).toHaveLength(1)
    expect(notices[0].level).toBe('error')
    expect(notices[0].message).toMatch(/^MCP server "broken" failed to start/)
    expect(notices[0].message).toContain('cannot open database /nonexistent/db.sqlite')
    expect(m.status()[0]).toEqual(expect.objectContaining({ name: 'broken', state: 'failed', tools: [], error: expect.stringContaining('broken') }))
  })

  it('reports a command that does not exist without stopping the other servers', async () => {
    const notices: string[] = []
    const m = manager([{ name: 'ghost', command: '/nonexistent/mcp-server' }, stdioFixture()], {
      restart: { maxAttempts: 0 },
      onNotice: (_level, message) => notices.push(message),
    })
    await m.start()
    expect(notices).toEqual([expect.stringMatching(/^MCP server "ghost" failed to start \(.*ENOENT.*\)\. The session goes on without its tools\.$/)])
    expect(m.status().map((s) => [s.name, s.state])).toEqual([
      ['ghost', 'failed'],
      ['fixture', 'connected'],
    ])
  })

  it('refreshes its tools when the server announces tools/list_changed', async () => {
    const m = manager([stdioFixture()], { onNotice: () => {} })
    await m.start()
    const changed = new Promise<void>((resolve) => m.onToolsChanged(resolve))
    await call(m, 'mcp__fixture__grow', { name: 'fresh' })
    await changed
    expect(await call(m, 'mcp__fixture__fresh', {})).toEqual({ content: [{ type: 'text', text: 'fresh ran' }] })
  })

  it('keeps returning the same tool list while nothing changes, so the request header stays stable', async () => {
    const m = shared
    expect(m.tools()).toBe(m.tools())
  })

  it('refuses calls after close with an error result', async () => {
    const m = manager([stdioFixture()], { onNotice: () => {} })
    await m.start()
    const echo = tool(m, 'mcp__fixture__echo')
    await m.close()
    expect(m.tools()).toEqual([])
    expect(await echo.run({ text: 'x' }, toolContext())).toEqual({ content: [{ type: 'text', text: expect.stringContaining('not connected (closed)') }], isError: true })
  })
})
