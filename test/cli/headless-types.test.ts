import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import type { SessionEvent } from '../../src/session/events.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { SUMMARY_REQUEST } from '../compaction/support.js'
import { streamJsonClient, userMessage, type Line } from '../support/stream-json-client.js'

const ROOT = resolve(import.meta.dirname, '../..')
/**
 * The Claude Agent SDK lives in a package of its own, installed with `npm ci --omit=optional` so that its bundled
 * Claude Code binary is left out; only its type declarations are used here (docs/testing.md).
 */
const AGENT_SDK = join(ROOT, 'interop', 'claude-agent-sdk')
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

function sessionEvents(home: string): SessionEvent[] {
  const root = join(home, 'sessions')
  const [dir] = readdirSync(root)
  const [file] = readdirSync(join(root, dir)).filter((f) => f.endsWith('.jsonl'))
  return readFileSync(join(root, dir, file), 'utf8').split('\n').filter(Boolean).slice(1).map((l) => JSON.parse(l) as SessionEvent)
}

/**
 * One process, three turns over stream-json input: (1) a read and an allowed `sleep 1`, a write refused for want of
 * permission, and steering sent while the sleep runs; (2) a model that keeps calling tools until --max-turns stops it; (3) a rate limit that is
 * retried, then a model error.
 */
async function multiStepRun(): Promise<{ lines: Line[]; stderr: string; code: number | null; cwd: string; home: string }> {
  const box = sandbox()
  writeFileSync(join(box.cwd, 'notes.txt'), 'alpha\nbeta\n')
  const read = { name: 'read', arguments: { file_path: join(box.cwd, 'notes.txt') } }
  mock = await startMockModel({
    script: [
      { reasoning: 'Read the notes.', toolCalls: [read, { name: 'bash', arguments: { command: 'sleep 1' } }] },
      { reasoning: 'Write a copy.', toolCalls: [{ name: 'write', arguments: { file_path: join(box.cwd, 'copy.txt'), content: 'x' } }] },
      { text: 'Done: beta is on line 2.' },
      { toolCalls: [read] },
      { toolCalls: [read] },
      { toolCalls: [read] },
      { error: { status: 429, body: { error: { message: 'Slow down.' } }, headers: { 'retry-after': '0' } } },
      { error: { status: 400, body: { error: { message: 'The request is invalid.', type: 'invalid_request_error' } } } },
    ],
  })
  const client = streamJsonClient(
    ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--include-partial-messages', '--max-turns', '3', '--allow', 'Bash(sleep 1)'],
    { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) },
  )
  client.send(userMessage('Where is beta in notes.txt?'))
  // The first step's `sleep 1` is running when this arrives, so it is steering claimed at the step's end.
  await client.waitFor((l) => l.type === 'assistant' && l.message.stop_reason === 'tool_use')
  client.send(userMessage([{ type: 'text', text: 'Also say which line.' }]))
  const first = await client.waitFor((l) => l.type === 'result')
  client.send(userMessage('Keep reading forever.'))
  const second = await client.waitFor((l) => l.type === 'result' && l !== first)
  client.send(userMessage('Once more.'))
  await client.waitFor((l) => l.type === 'result' && l !== first && l !== second)
  const code = await client.end()
  return { lines: client.lines, stderr: client.stderr, code, cwd: box.cwd, home: box.home }
}

/** A one-shot run in a small context window that compacts on the way (as in test/compaction/cli.test.ts). */
async function compactingRun(): Promise<Line[]> {
  const box = sandbox()
  mkdirSync(join(box.cwd, '.rein'))
  writeFileSync(join(box.cwd, '.rein', 'settings.json'), JSON.stringify({ models: { 'deepseek-flash': { contextWindow: 8_000 } } }))
  const reads = 30
  for (let i = 0; i < reads; i++) writeFileSync(join(box.cwd, `file${i}.ts`), `export const value${i} = ${i} // a line of padding\n`.repeat(12))
  const summary = { match: SUMMARY_REQUEST, repeat: true, text: 'The user asked to read every file; some were read. Next: read the rest.' }
  const script = [summary, ...Array.from({ length: reads }, (_, i) => ({ toolCalls: [{ name: 'read', arguments: { file_path: `file${i}.ts` } }] })), { text: 'Read them all.' }]
  const compacting = await startMockModel({ script })
  try {
    const r = await runCli(['-p', 'Read every file.', '--output-format', 'stream-json'], { cwd: box.cwd, env: cliEnv({ url: compacting.url, home: box.home }) })
    expect(r.code, r.stderr).toBe(0)
    return r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Line)
  } finally {
    await compacting.close()
  }
}

/** A one-shot run whose parent starts two explore children at once, with partial messages: the children's lines. */
async function subagentRun(): Promise<Line[]> {
  const box = sandbox()
  writeFileSync(join(box.cwd, 'a.txt'), 'alpha\n')
  const child = 'subagent of type "explore"'
  const script = [
    {
      system: 'You are Rein, a coding agent',
      toolCalls: [
        { name: 'task', arguments: { description: 'find alpha', prompt: 'Where is alpha?', subagent_type: 'explore' } },
        { name: 'task', arguments: { description: 'find beta', prompt: 'Where is beta?', subagent_type: 'explore' } },
      ],
    },
    { system: child, match: 'Where is alpha?', reasoning: 'Grep for it.', toolCalls: [{ name: 'grep', arguments: { pattern: 'alpha', path: box.cwd } }] },
    { system: child, match: 'Where is beta?', text: 'beta is nowhere.' },
    { system: child, match: 'Where is alpha?', text: 'alpha is in a.txt:1' },
    { system: 'You are Rein, a coding agent', text: 'alpha is in a.txt; beta is nowhere.' },
  ]
  const parentMock = await startMockModel({ script })
  try {
    const args = ['-p', 'Find alpha and beta.', '--output-format', 'stream-json', '--include-partial-messages']
    const r = await runCli(args, { cwd: box.cwd, env: cliEnv({ url: parentMock.url, home: box.home }) })
    expect(r.code, r.stderr).toBe(0)
    return r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Line)
  } finally {
    await parentMock.close()
  }
}

/** The SDK type each line is assigned to in the generated file. */
function sdkType(line: Line): string {
  switch (line.type) {
    case 'system':
      return line.subtype === 'api_retry' ? 'SDKAPIRetryMessage' : line.subtype === 'compact_boundary' ? 'SDKCompactBoundaryMessage' : 'SDKSystemMessage'
    case 'assistant':
      return 'SDKAssistantMessage'
    case 'user':
      return 'SDKUserMessage'
    case 'stream_event':
      return 'SDKPartialAssistantMessage'
    case 'result':
      return 'SDKResultMessage'
    default:
      return 'never'
  }
}

const tsc = promisify(execFile)

describe('stream-json read by a consumer written for Claude Code', () => {
  let run: Awaited<ReturnType<typeof multiStepRun>>
  let runMock: MockModel
  let compacted: Line[]
  let withChildren: Line[]
  beforeAll(async () => {
    run = await multiStepRun()
    runMock = mock!
    mock = undefined
    compacted = await compactingRun()
    withChildren = await subagentRun()
    return () => runMock.close()
  }, 120_000)

  it('every line of a multi-step run compiles as its Agent SDK message type under tsc --strict', async () => {
    const lines = [...run.lines, ...compacted, ...withChildren]
    // The children's lines are in: assistant, user and stream_event lines that name a task call.
    const childKinds = new Set(withChildren.filter((l) => typeof l.parent_tool_use_id === 'string').map((l) => l.type))
    expect([...childKinds].sort()).toEqual(['assistant', 'stream_event', 'user'])
    const kinds = new Set(lines.map((l) => (l.subtype && l.type !== 'result' ? `${l.type}/${l.subtype}` : l.type)))
    expect([...kinds].sort()).toEqual(['assistant', 'result', 'stream_event', 'system/api_retry', 'system/compact_boundary', 'system/init', 'user'])

    if (!existsSync(join(AGENT_SDK, 'node_modules', '@anthropic-ai', 'claude-agent-sdk', 'sdk.d.ts'))) {
      throw new Error('The Claude Agent SDK types are not installed; run `npm ci --prefix interop/claude-agent-sdk --omit=optional`.')
    }
    // Under the SDK's package, so that the compiled file resolves the SDK (and @types/node from the root) by walking up.
    const dir = join(AGENT_SDK, 'node_modules', '.cache', 'rein-headless-types')
    mkdirSync(dir, { recursive: true })
    const work = mkdtempSync(join(dir, 'run-'))
    try {
      const body = lines.map((line, i) => `const line${i}: ${sdkType(line)} & ReinExtras = ${JSON.stringify(line, null, 1)}`)
      const file = join(work, 'lines.ts')
      writeFileSync(
        file,
        [
          "import type { SDKAPIRetryMessage, SDKAssistantMessage, SDKCompactBoundaryMessage, SDKMessage, SDKPartialAssistantMessage, SDKResultMessage, SDKSystemMessage, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk'",
          '/** Rein puts its own figures under one extra key, which Claude Code consumers ignore. */',
          'type ReinExtras = { rein?: Record<string, unknown> }',
          ...body,
          `export const all: SDKMessage[] = [${lines.map((_, i) => `line${i}`).join(', ')}]`,
          '',
        ].join('\n'),
      )
      const args = ['--strict', '--noEmit', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', file]
      const result = await tsc(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), ...args], { cwd: work }).then(
        () => '',
        (error: { stdout?: string; message: string }) => error.stdout || error.message,
      )
      expect(result).toBe('')
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  }, 180_000)

  it('the same lines carry the run field by field, and usage agrees with the mock without double counting', () => {
    const { lines, stderr, code, home } = run
    const events = sessionEvents(home)
    const sessionId = lines[0].session_id
    expect(code).toBe(1)

    // Every line names the session, has a UUID and no parent tool call; committed lines never share a uuid.
    for (const line of lines) {
      expect(line.session_id).toBe(sessionId)
      expect(line.uuid).toMatch(UUID)
      // Claude Code's init and result messages have no parent_tool_use_id field; every other line has it.
      if (line.type !== 'system' && line.type !== 'result') expect(line.parent_tool_use_id).toBeNull()
    }
    const durable = lines.filter((l) => l.type !== 'stream_event')
    expect(new Set(durable.map((l) => l.uuid)).size).toBe(durable.length)

    // The init line comes first and describes the run.
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', permissionMode: 'default', model: 'deepseek-flash', mcp_servers: [] })
    expect(lines[0].tools).toEqual(expect.arrayContaining(['Read', 'Write', 'Bash']))
    expect(lines[0].claude_code_version).toBe(lines[0].rein.version)

    // One assistant line per model response, in log order, with tool inputs as objects.
    const responses = events.filter((e) => e.type === 'assistant/message') as SessionEvent<'assistant/message'>[]
    const assistants = lines.filter((l) => l.type === 'assistant')
    expect(assistants).toHaveLength(responses.length)
    expect(assistants.map((a) => a.message.stop_reason)).toEqual(['tool_use', 'tool_use', 'end_turn', 'tool_use', 'tool_use', 'tool_use'])
    expect(assistants[0].message.content).toEqual([
      { type: 'thinking', thinking: 'Read the notes.', signature: '' },
      { type: 'tool_use', id: expect.any(String), name: 'Read', input: { file_path: expect.stringMatching(/notes\.txt$/) } },
      { type: 'tool_use', id: expect.any(String), name: 'Bash', input: { command: 'sleep 1' } },
    ])
    expect(assistants.map((a) => a.message.usage.input_tokens)).toEqual(responses.map((r) => r.data.usage?.inputUncached))

    // One user line per batch of tool results; the refused write is an error result and a permission denial.
    const results = lines.filter((l) => l.type === 'user' && l.message.content[0].type === 'tool_result')
    expect(results.map((r) => r.message.content.length)).toEqual([2, 1, 1, 1, 1])
    const refused = results[1].message.content[0]
    expect(refused).toMatchObject({ type: 'tool_result', is_error: true, tool_use_id: assistants[1].message.content[1].id })
    expect(stderr).toMatch(/1 Write call was refused/)

    // The steering line was delivered inside the first turn, before its last response.
    const steering = lines.findIndex((l) => l.type === 'user' && l.message.content[0].text === 'Also say which line.')
    expect(steering).toBeGreaterThan(lines.indexOf(assistants[0]))
    expect(steering).toBeGreaterThan(lines.indexOf(results[0]))
    expect(steering).toBeLessThan(lines.indexOf(assistants[1]))
    expect(events.filter((e) => e.type === 'steering/message')).toHaveLength(1)

    // Three results: success, --max-turns hit, a model error.
    const [ok, maxTurns, failed] = lines.filter((l) => l.type === 'result')
    expect(ok).toMatchObject({ subtype: 'success', is_error: false, result: 'Done: beta is on line 2.', stop_reason: 'end_turn', num_turns: 3 })
    expect(ok.permission_denials).toEqual([{ tool_name: 'Write', tool_use_id: refused.tool_use_id, tool_input: { file_path: expect.stringMatching(/copy\.txt$/), content: 'x' } }])
    expect(maxTurns).toMatchObject({ subtype: 'error_max_turns', is_error: true, stop_reason: 'tool_use', num_turns: 3, permission_denials: [] })
    expect(maxTurns.rein.turn_end_reason).toBe('max-steps')
    expect(failed).toMatchObject({ subtype: 'error_during_execution', is_error: true, stop_reason: null, num_turns: 0 })
    expect(failed.errors[0]).toMatch(/DeepSeek.*400|invalid/i)
    expect(lines.at(-1)).toBe(failed)

    // Usage: input excludes cache reads, and both add up to exactly what the mock counted per request.
    const asked = runMock.requests.filter((q) => q.promptTokens !== undefined)
    const turnOf = [3, 3]
    let at = 0
    for (const [i, result] of [ok, maxTurns].entries()) {
      const served = asked.slice(at, at + turnOf[i])
      at += turnOf[i]
      const hits = served.reduce((n, q) => n + (q.cacheHitTokens ?? 0), 0)
      const prompt = served.reduce((n, q) => n + (q.promptTokens ?? 0), 0)
      expect(result.usage.cache_read_input_tokens).toBe(hits)
      expect(result.usage.input_tokens).toBe(prompt - hits)
      expect(result.usage.cache_read_input_tokens).toBeGreaterThan(0)
      expect(result.rein.cache_hit_ratio).toBeCloseTo(hits / prompt, 3)
    }
    // Totals run on across turns: modelUsage and cost are cumulative, usage is per turn.
    const flash = failed.modelUsage['deepseek-flash']
    expect(flash.inputTokens).toBe(ok.usage.input_tokens + maxTurns.usage.input_tokens)
    expect(flash.cacheReadInputTokens).toBe(ok.usage.cache_read_input_tokens + maxTurns.usage.cache_read_input_tokens)
    expect(failed.total_cost_usd).toBeCloseTo(flash.costUSD, 6)
    expect(maxTurns.total_cost_usd).toBeGreaterThan(ok.total_cost_usd)
    expect(ok.duration_api_ms).toBeLessThanOrEqual(ok.duration_ms)

    // Partial messages: each streamed message starts with the id of the assistant line it becomes and stops once.
    const starts = lines.filter((l) => l.type === 'stream_event' && l.event.type === 'message_start').map((l) => l.event.message.id)
    expect(starts).toEqual(assistants.map((a) => a.message.id))
    expect(lines.filter((l) => l.type === 'stream_event' && l.event.type === 'message_stop')).toHaveLength(assistants.length)

    // The rate limit was retried once, visibly, before the failing request.
    const retry = lines.find((l) => l.type === 'system' && l.subtype === 'api_retry')
    expect(retry).toMatchObject({ attempt: 1, max_retries: 5, retry_delay_ms: 0, error_status: 429, error: 'rate_limit' })
    expect(lines.indexOf(retry!)).toBeGreaterThan(lines.indexOf(maxTurns))
  })

  it('a compaction shows as a compact_boundary line between the messages it summarised and the ones after it', () => {
    const boundaries = compacted.filter((l) => l.type === 'system' && l.subtype === 'compact_boundary')
    expect(boundaries.length).toBeGreaterThanOrEqual(1)
    expect(boundaries[0].compact_metadata).toMatchObject({ trigger: 'auto', pre_tokens: expect.any(Number) })
    expect(boundaries[0].compact_metadata.pre_tokens).toBeGreaterThan(1000)
    expect(compacted.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Read them all.' })
  })
})
