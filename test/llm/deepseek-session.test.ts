import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel, type RecordedRequest } from '../support/mock-model.js'
import { CHAT_PASSBACK_MESSAGE, ANTHROPIC_PASSBACK_MESSAGE } from '../../src/llm/mock/rules.js'
import { SUMMARY_REQUEST } from '../compaction/support.js'
import { WIRES } from './helpers.js'

type LoggedEvent = { seq: number; type: string; time: number; data: any } // log lines, read loosely in assertions

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

function logs(home: string): Map<string, LoggedEvent[]> {
  const out = new Map<string, LoggedEvent[]>()
  const root = join(home, 'sessions')
  for (const dir of readdirSync(root)) {
    for (const file of readdirSync(join(root, dir)).filter((f) => f.endsWith('.jsonl'))) {
      const lines = readFileSync(join(root, dir, file), 'utf8').trim().split('\n').slice(1)
      out.set(file.replace(/\.jsonl$/, ''), lines.map((l) => JSON.parse(l) as LoggedEvent))
    }
  }
  return out
}

/** Every assistant message with tool calls in a recorded request, and whether it carried its reasoning. */
function toolTurns(request: RecordedRequest): { passed: boolean }[] {
  const messages = (request.body as { messages: any[] }).messages
  return messages
    .filter((m) => m.role === 'assistant')
    .filter((m) => (request.wire === 'chat' ? Array.isArray(m.tool_calls) : m.content.some((b: any) => b.type === 'tool_use')))
    .map((m) => ({ passed: request.wire === 'chat' ? typeof m.reasoning_content === 'string' : m.content[0]?.type === 'thinking' }))
}

function project(wire: string, settings: Record<string, unknown> = {}): ReturnType<typeof sandbox> {
  const box = sandbox()
  mkdirSync(join(box.cwd, '.git'))
  mkdirSync(join(box.cwd, '.rein'))
  writeFileSync(join(box.cwd, '.rein', 'settings.json'), JSON.stringify({ wire, ...settings }))
  return box
}

for (const wire of WIRES) {
  describe(`a thinking session that switches effort, forks and compacts, on the ${wire} wire`, () => {
    it('runs against the strict mock without a single refusal, and every tool turn passes its reasoning back', async () => {
      // A 12K window (settings) makes the fork compact; the mock still checks DeepSeek's real 1M context length.
      const box = project(wire, { models: { 'deepseek-flash': { contextWindow: 12_000 } } })
      for (let i = 0; i < 6; i++) writeFileSync(join(box.cwd, `file${i}.ts`), `export const value${i} = ${i} // padding padding padding\n`.repeat(110))
      mock = await startMockModel({
        script: [
          { match: SUMMARY_REQUEST, repeat: true, text: 'The user listed and read files; nothing was changed.' },
          // 1. --effort off: a tool turn with no reasoning at all.
          { match: '/list/i', toolCalls: [{ name: 'ls', arguments: { path: '.' } }] },
          { text: 'Six files.' },
          // 2. --continue --effort high: a tool call the model makes with empty reasoning.
          { match: '/file0/', toolCalls: [{ name: 'read', arguments: { file_path: 'file0.ts' } }] },
          { reasoning: 'It is padding.', text: 'It is padding.' },
          // 3. --fork at max effort: reads until the window forces a compaction.
          ...[1, 2, 3, 4, 5].map((i) => ({ match: '/rest/', reasoning: i % 2 ? `Reading file${i}.` : '', toolCalls: [{ name: 'read', arguments: { file_path: `file${i}.ts` } }] })),
          { text: 'All read.' },
        ],
      })
      const env = cliEnv({ url: mock.url, home: box.home })
      const rein = (args: string[]) => runCli(args, { cwd: box.cwd, env, timeoutMs: 60_000 })

      const first = await rein(['-p', 'List the files.', '--effort', 'off', '--output-format', 'json'])
      expect(first.stderr).toBe('')
      expect(first.code).toBe(0)
      const second = await rein(['-p', 'Read file0.', '--continue', '--effort', 'high', '--output-format', 'json'])
      expect(second.code).toBe(0)
      const id = JSON.parse(second.stdout).session_id as string
      const third = await rein(['-p', 'Read the rest, one by one.', '--fork', id, '--effort', 'max', '--output-format', 'json'])
      expect(third.code).toBe(0)
      expect(JSON.parse(third.stdout).result).toBe('All read.')

      expect(mock.requests.filter((r) => r.refused)).toEqual([])
      const summaries = mock.requests.filter((r) => (r.body as any).messages.some((m: any) => JSON.stringify(m).includes(SUMMARY_REQUEST)))
      expect(summaries.length).toBeGreaterThan(0)
      // The compaction request follows the same output-cap rule: fitted to the (configured) 12K window, at its floor.
      expect(summaries.every((r) => (r.body as any).max_tokens === 4_096)).toBe(true)
      const thinking = mock.requests.filter((r) => (r.body as any).thinking.type === 'enabled')
      const turns = thinking.flatMap(toolTurns)
      expect(turns.length).toBeGreaterThan(3)
      expect(turns.every((t) => t.passed)).toBe(true)

      const fork = [...logs(box.home).values()].find((events) => events.some((e) => e.type === 'compaction/end'))
      expect(fork?.filter((e) => e.type === 'compaction/end').map((e) => e.data.outcome)).toContain('replaced')
      const verify = await rein(['sessions', 'verify', JSON.parse(third.stdout).session_id])
      expect(verify.code).toBe(0)
    }, 120_000)

    it('repairs a passback refusal once by sending reasoning with every assistant message, and logs the repair', async () => {
      const box = project(wire)
      const message = wire === 'chat' ? CHAT_PASSBACK_MESSAGE : ANTHROPIC_PASSBACK_MESSAGE
      mock = await startMockModel({
        script: [
          { text: 'Hello.' },
          { error: { status: 400, body: { error: { message, type: 'invalid_request_error' } } } },
          { text: 'Again.' },
        ],
      })
      const env = cliEnv({ url: mock.url, home: box.home })
      expect((await runCli(['-p', 'hi'], { cwd: box.cwd, env })).code).toBe(0)
      const r = await runCli(['-p', 'once more', '--continue', '--output-format', 'json'], { cwd: box.cwd, env })
      expect(r.code).toBe(0)
      expect(JSON.parse(r.stdout).result).toBe('Again.')
      const retried = mock.requests[2].body as any
      const answer = wire === 'chat' ? retried.messages.find((m: any) => m.role === 'assistant') : retried.messages.find((m: any) => m.role === 'assistant')
      if (wire === 'chat') expect(answer.reasoning_content).toBe('')
      else expect(answer.content[0]).toEqual({ type: 'thinking', thinking: '' })
      const events = [...logs(box.home).values()][0]
      const repair = events.find((e) => e.type === 'request/header' && e.data.reason === 'repair')
      expect(repair?.data.config.passback).toBe('every-assistant')
      expect(events.filter((e) => e.type === 'llm/retry').map((e) => e.data.error.code)).toEqual(['reasoning-passback'])
    })

    it('never repairs twice: a second passback refusal ends the turn with one sentence', async () => {
      const box = project(wire)
      const message = wire === 'chat' ? CHAT_PASSBACK_MESSAGE : ANTHROPIC_PASSBACK_MESSAGE
      const refusal = { error: { status: 400, body: { error: { message, type: 'invalid_request_error' } } } }
      mock = await startMockModel({ script: [refusal, refusal, { text: 'never reached' }] })
      const r = await runCli(['-p', 'hi'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
      expect(r.code).toBe(1)
      expect(mock.requests).toHaveLength(2)
      expect(r.stderr).toContain("DeepSeek refused the request because an earlier answer's reasoning was not passed back (400)")
    })
  })
}

describe('the model a user names', () => {
  for (const id of ['deepseek-chat', 'deepseek-reasoner']) {
    it(`refuses the retired ${id} before any request, naming the replacement`, async () => {
      const box = sandbox()
      mock = await startMockModel({ script: [{ text: 'never' }] })
      const r = await runCli(['-p', 'hi', '--model', id], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
      expect(r.code).toBe(1)
      expect(r.stderr.trim()).toBe(`rein: DeepSeek retired ${id} on 2026-07-24; use deepseek-flash instead (--model deepseek-flash, or "model" in settings).`)
      expect(mock.requests).toHaveLength(0)
      expect(existsSync(join(box.home, 'sessions'))).toBe(false)
    })
  }

  it('refuses a retired id set in settings the same way', async () => {
    const box = sandbox()
    mkdirSync(join(box.cwd, '.rein'))
    writeFileSync(join(box.cwd, '.rein', 'settings.json'), JSON.stringify({ model: 'deepseek-chat' }))
    mock = await startMockModel({ script: [{ text: 'never' }] })
    const r = await runCli(['-p', 'hi'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/DeepSeek retired deepseek-chat on 2026-07-24; use deepseek-flash instead/)
    expect(mock.requests).toHaveLength(0)
  })

  it("matches a script's `match` against the prompt on a session's first request, past the runtime-context reminder", async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ match: '/list/i', text: 'Matched the prompt.' }, { text: 'fell through' }] })
    const r = await runCli(['-p', 'List the files here.'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.stdout.trim()).toBe('Matched the prompt.')
    const last = (mock.requests[0].body as any).messages.at(-1)
    expect(JSON.stringify(last)).toContain('<system-reminder>')
  })
})

describe('verify re-derives requests from the log alone', () => {
  it('still passes after settings.models is edited, since the header records window, output cap and vision', async () => {
    const box = project('chat', { models: { 'deepseek-flash': { maxOutput: 5_000 } } })
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'ls', arguments: { path: '.' } }] }, { text: 'done' }] })
    const env = cliEnv({ url: mock.url, home: box.home })
    const r = await runCli(['-p', 'look', '--output-format', 'json'], { cwd: box.cwd, env })
    expect(r.code).toBe(0)
    expect((mock.requests[0].body as any).max_tokens).toBe(5_000)
    writeFileSync(join(box.cwd, '.rein', 'settings.json'), JSON.stringify({ models: { 'deepseek-flash': { maxOutput: 9_000, contextWindow: 50_000, images: false } } }))
    const verify = await runCli(['sessions', 'verify', JSON.parse(r.stdout).session_id], { cwd: box.cwd, env })
    expect(verify.stdout).toMatch(/no problems/)
    expect(verify.code).toBe(0)
  })
})

describe('reading an image', () => {
  const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')

  for (const wire of WIRES) {
    it(`attaches the image for deepseek-flash, which sees images (${wire})`, async () => {
      const box = project(wire)
      writeFileSync(join(box.cwd, 'shot.png'), PNG)
      mock = await startMockModel({ script: [{ toolCalls: [{ name: 'read', arguments: { file_path: 'shot.png' } }] }, { text: 'A pixel.' }] })
      const r = await runCli(['-p', 'what is in shot.png?'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
      expect(r.code).toBe(0)
      const sent = JSON.stringify(mock.requests[1].body)
      expect(sent).toContain(PNG.toString('base64'))
      expect(sent).toContain(wire === 'chat' ? '"image_url"' : '"type":"image"')
      expect(mock.requests.filter((q) => q.refused)).toEqual([])
    })

    it(`tells deepseek-v4-pro, which cannot see images, in one sentence instead (${wire})`, async () => {
      const box = project(wire)
      writeFileSync(join(box.cwd, 'shot.png'), PNG)
      mock = await startMockModel({ script: [{ toolCalls: [{ name: 'read', arguments: { file_path: 'shot.png' } }] }, { text: 'Cannot see it.' }] })
      const r = await runCli(['-p', 'what is in shot.png?', '--model', 'deepseek-v4-pro'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
      expect(r.code).toBe(0)
      const sent = JSON.stringify(mock.requests[1].body)
      expect(sent).not.toContain(PNG.toString('base64'))
      expect(sent).toContain('shot.png is an image (image/png, 29 bytes), and deepseek-v4-pro cannot see images, so it was not attached.')
    })
  }
})

describe('base URLs through the CLI', () => {
  for (const wire of WIRES) {
    it(`works with DEEPSEEK_BASE_URL ending in /v1 (${wire})`, async () => {
      const box = project(wire)
      mock = await startMockModel({ script: [{ text: 'ok' }] })
      const r = await runCli(['-p', 'hi'], { cwd: box.cwd, env: cliEnv({ url: `${mock.url}/v1`, home: box.home }) })
      expect(r.code).toBe(0)
      expect(mock.requests[0].path).toBe(wire === 'chat' ? '/v1/chat/completions' : '/anthropic/v1/messages')
    })
  }

  it('takes the Anthropic endpoint from DEEPSEEK_ANTHROPIC_BASE_URL when set', async () => {
    const box = project('anthropic')
    mock = await startMockModel({ script: [{ text: 'ok' }] })
    const env = cliEnv({ url: 'http://127.0.0.1:9', home: box.home, extra: { DEEPSEEK_ANTHROPIC_BASE_URL: `${mock.url}/anthropic` } })
    const r = await runCli(['-p', 'hi'], { cwd: box.cwd, env })
    expect(r.code).toBe(0)
    expect(mock.requests[0].path).toBe('/anthropic/v1/messages')
  })
})

describe('rein models', () => {
  it('lists the catalog and, with a key, what DeepSeek serves, marking ids the catalog does not know', async () => {
    const box = sandbox()
    mock = await startMockModel({ models: ['deepseek-flash', 'deepseek-v4-pro', 'deepseek-v5-preview'] })
    const r = await runCli(['models'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/deepseek-flash\s+1,048,565\s+384,000\s+yes\s+0\.003 \/ 0\.15 \/ 0\.6\s+0\.006 \/ 0\.3 \/ 1\.2/)
    expect(r.stdout).toMatch(/deepseek-v4-flash \(alias of deepseek-flash\)/)
    expect(r.stdout).toContain('Retired: deepseek-chat (on 2026-07-24; use deepseek-flash)')
    expect(r.stdout).toMatch(/deepseek-v5-preview {2}\(not in Rein's catalog/)
    expect(r.stdout).not.toMatch(/deepseek-v4-pro {2}\(not in/)
    expect(mock.requests[0].path).toBe('/models')
  })

  it('without a key lists the catalog and says how to see what DeepSeek serves', async () => {
    const box = sandbox()
    const r = await runCli(['models', '--json'], { cwd: box.cwd, env: cliEnv({ home: box.home, key: null }) })
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.catalog.map((m: { id: string }) => m.id)).toEqual(['deepseek-flash', 'deepseek-v4-pro', 'deepseek-v4-flash', 'deepseek-v4-flash-vision-exp'])
    expect(out.served).toBeNull()
  })
})
