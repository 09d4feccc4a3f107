import { afterEach, describe, expect, it } from 'vitest'
import { McpManager, type McpAgentTool } from '../../src/mcp/index.js'
import { stdioFixture, toolContext } from './fixture.js'

let manager: McpManager | undefined
afterEach(async () => {
  await manager?.close()
  manager = undefined
})

describe('MCP calls and the turn signal', () => {
  it('50 calls sharing one turn signal add no lasting abort listener and raise no MaxListenersExceededWarning', async () => {
    const warnings: Error[] = []
    const onWarning = (warning: Error): void => {
      warnings.push(warning)
    }
    process.on('warning', onWarning)
    try {
      manager = new McpManager([stdioFixture()], { onNotice: () => {} })
      await manager.start()
      const echo = manager.tools().find((t) => t.name === 'mcp__fixture__echo') as McpAgentTool
      const turn = new AbortController()
      const added: number[] = []
      const original = turn.signal.addEventListener.bind(turn.signal)
      let live = 0
      turn.signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
        if (args[0] === 'abort') live++
        original(...args)
      }
      const remove = turn.signal.removeEventListener.bind(turn.signal)
      turn.signal.removeEventListener = (...args: Parameters<AbortSignal['removeEventListener']>) => {
        if (args[0] === 'abort') live--
        remove(...args)
      }
      for (let i = 0; i < 50; i++) {
        const output = await echo.run(echo.schema.parse({ text: `call ${i}` }), toolContext(turn.signal))
        expect(output.isError ?? false).toBe(false)
        added.push(live)
      }
      expect(added.every((n) => n === 0)).toBe(true)
      // Let any deferred warning be emitted before checking.
      await new Promise((resolve) => setImmediate(resolve))
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([])
    } finally {
      process.off('warning', onWarning)
    }
  })
})
