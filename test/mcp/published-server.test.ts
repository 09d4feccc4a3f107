import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { McpManager } from '../../src/mcp/index.js'
import { toolContext } from './fixture.js'

/** The reference server the MCP project publishes on npm (a dev dependency), run over stdio as users configure it. */
const require = createRequire(import.meta.url)
const everything = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js')

describe('a published MCP server (@modelcontextprotocol/server-everything) over stdio', () => {
  let m: McpManager
  beforeAll(async () => {
    m = new McpManager([{ name: 'everything', command: process.execPath, args: [everything, 'stdio'] }], { onNotice: () => {} })
    await m.start()
  })
  afterAll(() => m.close())

  it('lists its tools under mcp__everything__ with the server schemas', () => {
    const names = m.tools().map((t) => t.name)
    expect(names).toContain('mcp__everything__echo')
    const echo = m.tools().find((t) => t.name === 'mcp__everything__echo')
    expect(echo?.parameters).toMatchObject({ type: 'object', properties: { message: expect.any(Object) } })
  })

  it('calls a tool and returns its text, and refuses arguments its schema rejects', async () => {
    const echo = m.tools().find((t) => t.name === 'mcp__everything__echo')!
    const result = await echo.run(echo.schema.parse({ message: 'hello from rein' }), toolContext())
    expect(result.isError ?? false).toBe(false)
    expect(JSON.stringify(result.content)).toContain('hello from rein')
    expect(echo.schema.safeParse({ message: 42 }).success).toBe(false)
  })
})
