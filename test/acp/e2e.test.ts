import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { InitializeResponse, SessionUpdate } from '@agentclientprotocol/sdk'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { CLIENT_INIT, startReinAcp, tempDir, until, type ReinAcp } from './support.js'
import { CLI } from '../support/cli.js'

/**
 * Most tests share one `rein acp` process and one mock model, each test in a session of its own (several sessions
 * on one connection is how editors use it); tests that need a fresh process (load, disconnect, no key) start one.
 */
let mock: MockModel
let shared: ReinAcp
let home: string
let init: InitializeResponse
const extra: ReinAcp[] = []

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`Build Rein first (npx tsc -p .): ${CLI} is missing.`)
  mock = await startMockModel()
  home = tempDir('rein-acp-home-')
  shared = startReinAcp({ home, baseUrl: mock.url, cwd: home })
  init = await shared.connection.agent.request('initialize', CLIENT_INIT)
})

afterEach(async (context) => {
  const failed = context.task.result?.state === 'fail'
  if (failed) console.error(`rein acp stderr:\n${shared.stderr()}`)
  for (const rein of extra.splice(0)) {
    if (failed) console.error(`rein acp stderr:\n${rein.stderr()}`)
    if (rein.child.exitCode === null) rein.child.kill('SIGKILL')
  }
})

afterAll(async () => {
  if (shared && shared.child.exitCode === null) shared.child.kill('SIGKILL')
  await mock?.close()
})

interface Setup {
  rein: ReinAcp
  project: string
  sessionId: string
}

/** A new session of the shared process in a fresh project directory, with `script` queued on the mock. */
async function setup(script: MockResponse[]): Promise<Setup> {
  mock.push(...script)
  const project = tempDir('rein-acp-project-')
  const { sessionId } = await shared.connection.agent.request('session/new', { cwd: project, mcpServers: [] })
  return { rein: shared, project, sessionId }
}

/** A process of its own, initialized. */
async function startOwn(options: { noKey?: boolean; home?: string } = {}): Promise<ReinAcp> {
  const rein = startReinAcp({ home: options.home ?? tempDir('rein-acp-home-'), baseUrl: mock.url, cwd: home, noKey: options.noKey })
  extra.push(rein)
  await rein.connection.agent.request('initialize', CLIENT_INIT)
  return rein
}

function texts(updates: SessionUpdate[], kind: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk'): string {
  return updates
    .map((u) => (u.sessionUpdate === kind && u.content.type === 'text' ? u.content.text : ''))
    .join('')
}

function prompt(s: { rein: ReinAcp; sessionId: string }, text: string, sessionId = s.sessionId) {
  return s.rein.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })
}

describe('rein acp, driven by the SDK client', () => {
  it('initialize advertises session loading, embedded context and the DeepSeek key as the auth method', () => {
    expect(init.protocolVersion).toBe(1)
    expect(init.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      sessionCapabilities: { list: {} },
    })
    expect(init.authMethods?.[0]).toMatchObject({ id: 'deepseek-api-key' })
  })

  it('a prompt that reads and edits a file streams tool calls and a diff, and the file changes on disk', async () => {
    const s = await setup([
      { toolCalls: [{ id: 'call_read', name: 'read', arguments: { file_path: 'a.txt' } }] },
      {
        reasoning: 'Replace the word.',
        toolCalls: [{ id: 'call_edit', name: 'edit', arguments: { file_path: 'a.txt', old_string: 'world', new_string: 'rein' } }],
      },
      { text: 'Changed world to rein.' },
    ])
    writeFileSync(join(s.project, 'a.txt'), 'hello world\n')
    await s.rein.connection.agent.request('session/set_mode', { sessionId: s.sessionId, modeId: 'accept-edits' })
    const response = await prompt(s, 'fix a.txt')
    expect(response.stopReason).toBe('end_turn')
    expect(readFileSync(join(s.project, 'a.txt'), 'utf8')).toBe('hello rein\n')

    const updates = s.rein.updatesOf(s.sessionId)
    expect(updates).toContainEqual(
      expect.objectContaining({
        sessionUpdate: 'tool_call',
        toolCallId: 'call_read',
        kind: 'read',
        title: 'Read a.txt',
        locations: [{ path: join(s.project, 'a.txt') }],
      }),
    )
    expect(updates).toContainEqual(
      expect.objectContaining({ sessionUpdate: 'tool_call', toolCallId: 'call_edit', kind: 'edit', title: 'Edit a.txt' }),
    )
    const done = updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'call_edit' && u.status === 'completed')
    expect(done).toMatchObject({
      content: [{ type: 'diff', path: join(s.project, 'a.txt'), oldText: 'hello world\n', newText: 'hello rein\n' }],
    })
    expect(texts(updates, 'agent_thought_chunk')).toBe('Replace the word.')
    expect(texts(updates, 'agent_message_chunk')).toBe('Changed world to rein.')
  })

  it('asks the editor before a write and follows its answer: rejected once, allowed once', async () => {
    const s = await setup([
      { toolCalls: [{ id: 'call_no', name: 'write', arguments: { file_path: 'rejected.txt', content: 'x' } }] },
      { toolCalls: [{ id: 'call_yes', name: 'write', arguments: { file_path: 'allowed.txt', content: 'y' } }] },
      { text: 'One written.' },
    ])
    s.rein.permissionChoices.push('reject-once', 'allow-once')
    const response = await prompt(s, 'write two files')
    expect(response.stopReason).toBe('end_turn')
    expect(s.rein.permissionRequests.map((r) => r.toolCall.toolCallId)).toEqual(['call_no', 'call_yes'])
    expect(s.rein.permissionRequests[0].options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once'])
    expect(s.rein.permissionRequests[0].toolCall).toMatchObject({ title: 'Write rejected.txt', kind: 'edit' })
    expect(existsSync(join(s.project, 'rejected.txt'))).toBe(false)
    expect(readFileSync(join(s.project, 'allowed.txt'), 'utf8')).toBe('y')
    const updates = s.rein.updatesOf(s.sessionId)
    expect(updates).toContainEqual(expect.objectContaining({ sessionUpdate: 'tool_call_update', toolCallId: 'call_no', status: 'failed' }))
    expect(updates).toContainEqual(expect.objectContaining({ sessionUpdate: 'tool_call_update', toolCallId: 'call_yes', status: 'completed' }))
  })

  it('session/cancel during a streaming answer ends the prompt with cancelled, and the session takes the next prompt', async () => {
    const s = await setup([
      { text: 'word '.repeat(200), chunkSize: 5, chunkDelayMs: 20 },
      { text: 'Back again.' },
    ])
    const pending = prompt(s, 'talk a lot')
    await until(() => texts(s.rein.updatesOf(s.sessionId), 'agent_message_chunk').length > 0, 'the first text chunk')
    await s.rein.connection.agent.notify('session/cancel', { sessionId: s.sessionId })
    expect((await pending).stopReason).toBe('cancelled')
    const streamed = texts(s.rein.updatesOf(s.sessionId), 'agent_message_chunk')
    expect(streamed.length).toBeLessThan(1000)

    const next = await prompt(s, 'again')
    expect(next.stopReason).toBe('end_turn')
    expect(texts(s.rein.updatesOf(s.sessionId), 'agent_message_chunk').endsWith('Back again.')).toBe(true)
  })

  it('a prompt sent while a slow command runs steers the running turn and both prompts end with it', async () => {
    const s = await setup([
      { toolCalls: [{ id: 'call_sleep', name: 'bash', arguments: { command: 'sleep 1; echo slept' } }] },
      { match: 'also say hi', text: 'Slept, and hi.' },
    ])
    await s.rein.connection.agent.request('session/set_mode', { sessionId: s.sessionId, modeId: 'bypass' })
    const before = mock.requests.length
    const first = prompt(s, 'run the slow command')
    await until(
      () => s.rein.updatesOf(s.sessionId).some((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'call_sleep' && u.status === 'in_progress'),
      'the command to start',
    )
    const second = prompt(s, 'also say hi')
    const [a, b] = await Promise.all([first, second])
    expect(a.stopReason).toBe('end_turn')
    expect(b.stopReason).toBe('end_turn')
    expect(mock.requests.length - before).toBe(2)
    const lastBody = JSON.stringify(mock.requests.at(-1)!.body)
    expect(lastBody.indexOf('slept')).toBeLessThan(lastBody.indexOf('also say hi'))
    const updates = s.rein.updatesOf(s.sessionId)
    expect(updates).toContainEqual({ sessionUpdate: 'current_mode_update', currentModeId: 'bypass' })
    expect(texts(updates, 'agent_message_chunk')).toBe('Slept, and hi.')
  })

  it('session/load in a new process replays the history before answering, and the session continues', async () => {
    const ownHome = tempDir('rein-acp-home-')
    const first = await startOwn({ home: ownHome })
    mock.push(
      { toolCalls: [{ id: 'call_notes', name: 'read', arguments: { file_path: 'notes.md' } }] },
      { text: 'The notes say hi.' },
      { text: 'Still here.' },
    )
    const project = tempDir('rein-acp-project-')
    writeFileSync(join(project, 'notes.md'), 'hi\n')
    const { sessionId } = await first.connection.agent.request('session/new', { cwd: project, mcpServers: [] })
    expect((await prompt({ rein: first, sessionId }, 'read my notes')).stopReason).toBe('end_turn')
    expect(await first.disconnect()).toBe(0)

    const rein = await startOwn({ home: ownHome })
    const loaded = await rein.connection.agent.request('session/load', { sessionId, cwd: project, mcpServers: [] })
    expect(loaded.modes?.currentModeId).toBe('default')
    const replayed = rein.updatesOf(sessionId).filter((u) => u.sessionUpdate !== 'available_commands_update')
    expect(replayed.map((u) => u.sessionUpdate)).toEqual([
      'user_message_chunk',
      'tool_call',
      'tool_call_update',
      'agent_message_chunk',
    ])
    expect(texts(replayed, 'user_message_chunk')).toBe('read my notes')
    expect(replayed[2]).toMatchObject({ toolCallId: 'call_notes', status: 'completed' })
    expect(texts(replayed, 'agent_message_chunk')).toBe('The notes say hi.')

    expect((await prompt({ rein, sessionId }, 'still there?')).stopReason).toBe('end_turn')
    expect(JSON.stringify(mock.requests.at(-1)!.body)).toContain('read my notes')
  })

  it('session/load of a session another process holds is refused with the holder and the fork suggestion', async () => {
    const ownHome = tempDir('rein-acp-home-')
    const first = await startOwn({ home: ownHome })
    const project = tempDir('rein-acp-project-')
    const { sessionId } = await first.connection.agent.request('session/new', { cwd: project, mcpServers: [] })
    const second = await startOwn({ home: ownHome })
    await expect(second.connection.agent.request('session/load', { sessionId, cwd: project, mcpServers: [] })).rejects.toMatchObject({
      message: expect.stringMatching(new RegExp(`^Session ${sessionId} is open for writing by process \\d+ on this machine .*rein --fork ${sessionId}\\.$`)),
    })
    expect(await first.disconnect()).toBe(0)
    await second.connection.agent.request('session/load', { sessionId, cwd: project, mcpServers: [] })
  })

  it('runs two sessions of one connection in parallel without mixing their updates', async () => {
    // The mock answers requests in arrival order, so which session gets which reply is open; each must get one whole.
    const s = await setup([
      { text: 'the first reply', chunkSize: 3, chunkDelayMs: 5 },
      { text: 'the second reply', chunkSize: 3, chunkDelayMs: 5 },
    ])
    const other = await s.rein.connection.agent.request('session/new', { cwd: s.project, mcpServers: [] })
    expect(other.sessionId).not.toBe(s.sessionId)
    const [a, b] = await Promise.all([prompt(s, 'alpha'), prompt(s, 'beta', other.sessionId)])
    expect(a.stopReason).toBe('end_turn')
    expect(b.stopReason).toBe('end_turn')
    const replies = [
      texts(s.rein.updatesOf(s.sessionId), 'agent_message_chunk'),
      texts(s.rein.updatesOf(other.sessionId), 'agent_message_chunk'),
    ]
    expect(replies.sort()).toEqual(['the first reply', 'the second reply'])
  })

  it('answers malformed frames with JSON-RPC errors and keeps serving', async () => {
    const s = await setup([{ text: 'fine' }])
    const start = s.rein.frames.length
    s.rein.writeRaw('this is not json\n')
    s.rein.writeRaw('[1, 2]\n')
    s.rein.writeRaw('{"jsonrpc":"2.0","id":"bad-params","method":"session/prompt","params":{"nope":1}}\n')
    s.rein.writeRaw('{"jsonrpc":"2.0","id":"no-method","method":"rein/nothing","params":{}}\n')
    await until(() => s.rein.frames.some((f) => f.direction === 'received' && f.message.id === 'no-method'), 'the last error')
    const errors = s.rein.frames
      .slice(start)
      .filter((f) => f.direction === 'received' && 'error' in f.message)
      .map((f) => [f.message.id, (f.message.error as { code: number }).code])
    expect(errors).toEqual([
      [null, -32700],
      [null, -32600],
      ['bad-params', -32602],
      ['no-method', -32601],
    ])
    await expect(prompt(s, 'hi', 'no-such-session')).rejects.toMatchObject({ code: -32002 })
    expect((await prompt(s, 'still alive?')).stopReason).toBe('end_turn')
  })

  it('refuses an MCP server over SSE with a sentence naming the transports Rein supports', async () => {
    const project = tempDir('rein-acp-project-')
    await expect(
      shared.connection.agent.request('session/new', {
        cwd: project,
        mcpServers: [{ type: 'sse', name: 'old', url: 'http://127.0.0.1:9/sse', headers: [] }],
      }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('stdio') })
  })

  it('refuses a relative cwd and, without a key, names DEEPSEEK_API_KEY', async () => {
    const rein = await startOwn({ noKey: true })
    await expect(rein.connection.agent.request('session/new', { cwd: 'relative/dir', mcpServers: [] })).rejects.toMatchObject({
      code: -32602,
    })
    await expect(rein.connection.agent.request('session/new', { cwd: home, mcpServers: [] })).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('DEEPSEEK_API_KEY'),
    })
    await expect(rein.connection.agent.request('authenticate', { methodId: 'deepseek-api-key' })).rejects.toMatchObject({
      code: -32000,
    })
  })

  it('a client that disconnects mid-turn cancels the turn, the log records it, and the process exits 0', async () => {
    const ownHome = tempDir('rein-acp-home-')
    const rein = await startOwn({ home: ownHome })
    mock.push({ text: 'word '.repeat(400), chunkSize: 5, chunkDelayMs: 20 })
    const { sessionId } = await rein.connection.agent.request('session/new', { cwd: home, mcpServers: [] })
    void prompt({ rein, sessionId }, 'talk a lot').catch(() => {
      // The connection closes under this request; its rejection is expected.
    })
    await until(() => texts(rein.updatesOf(sessionId), 'agent_message_chunk').length > 0, 'the first text chunk')
    expect(await rein.disconnect()).toBe(0)
    const sessions = join(ownHome, 'sessions')
    const [dir] = readdirSync(sessions)
    const log = readFileSync(join(sessions, dir, `${sessionId}.jsonl`), 'utf8')
    const events = log
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data?: { reason?: string } })
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'aborted' } })
  })
})
