import { describe, expect, it } from 'vitest'
import { LineLimiter } from '../../src/frontend/line-limit.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'

describe('bounded protocol lines', () => {
  it('a line over the limit is dropped as it arrives and reported once with its length; the next line passes', () => {
    const limiter = new LineLimiter(10)
    expect(limiter.push(Buffer.from('short\n0123456'))).toEqual([{ line: Buffer.from('short') }])
    expect(limiter.push(Buffer.from('789abcdef'))).toEqual([])
    expect(limiter.push(Buffer.from('xyz\nok\n'))).toEqual([{ tooLong: 19 }, { line: Buffer.from('ok') }])
    expect(limiter.push(Buffer.from('0123456789\n'))).toEqual([{ line: Buffer.from('0123456789') }])
    expect(limiter.push(Buffer.from('tail'))).toEqual([])
    expect(limiter.end()).toEqual([{ line: Buffer.from('tail') }])
  })

  it('rein rpc answers a line just over REIN_MAX_LINE_BYTES with an error response and keeps serving', async () => {
    const box = sandbox()
    const env = cliEnv({ home: box.home, extra: { REIN_MAX_LINE_BYTES: '2000' } })
    const oversize = JSON.stringify({ id: 1, type: 'prompt', message: 'x'.repeat(2000) })
    const input = `${oversize}\n${JSON.stringify({ id: 2, type: 'get_state' })}\n`
    const r = await runCli(['rpc'], { cwd: box.cwd, env, input })
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; id?: unknown; ok?: boolean; error?: string })
    const responses = lines.filter((l) => l.type === 'response')
    expect(responses[0]).toMatchObject({ id: null, ok: false })
    expect(responses[0].error).toBe(
      `That line is ${oversize.length} bytes, over the 2000-byte limit, and was ignored; send smaller messages or raise REIN_MAX_LINE_BYTES.`,
    )
    expect(responses[1]).toMatchObject({ id: 2, ok: true })
  })

  it('rein acp answers a line over the limit with an Invalid Request error and still initializes', async () => {
    const box = sandbox()
    const env = cliEnv({ home: box.home, extra: { REIN_MAX_LINE_BYTES: '2000' } })
    const oversize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(2000) } })
    const init = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })
    const r = await runCli(['acp'], { cwd: box.cwd, env, input: `${oversize}\n${init}\n` })
    const frames = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: unknown; error?: { code: number; message: string }; result?: unknown })
    expect(frames[0]).toMatchObject({ id: null, error: { code: -32600 } })
    expect(frames[0].error?.message).toMatch(/over the 2000-byte limit/)
    expect(frames.find((f) => f.id === 2)?.result).toBeDefined()
  })
})
