import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliEnv, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { streamJsonClient, userMessage, type Line } from '../support/stream-json-client.js'

interface HostileRun {
  lines: Line[]
  stderr: string
  code: number | null
  answers: Map<string, Line>
  mcpAttempts: number
}

/**
 * A client that speaks the control protocol badly, written line by line: an SDK MCP server that answers every
 * message with an error, a malformed request, an unknown subtype, an answer to a request nobody sent, and a
 * PreToolUse callback that never answers (its matcher allows 1 s). Then one ordinary prompt, whose tool call is
 * approved through can_use_tool.
 */
async function hostileRun(mock: MockModel): Promise<HostileRun> {
  const box = sandbox()
  const client = streamJsonClient(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--permission-prompt-tool', 'stdio'], {
    cwd: box.cwd,
    env: cliEnv({ url: mock.url, home: box.home }),
  })
  let mcpAttempts = 0
  let seen = 0
  let stop = false
  // Answers Rein's own requests as they come: MCP messages with an error, permission with allow, hooks never.
  const responder = (async () => {
    while (!stop) {
      const line = await client.waitFor(() => true, seen, 60_000).catch(() => undefined)
      if (!line) return
      seen = client.lines.indexOf(line) + 1
      if (line.type !== 'control_request') continue
      const id = line.request_id as string
      if (line.request.subtype === 'mcp_message') {
        mcpAttempts++
        client.send({ type: 'control_response', response: { subtype: 'error', request_id: id, error: 'SDK MCP server not found: broken' } })
      } else if (line.request.subtype === 'can_use_tool') {
        client.send({ type: 'control_response', response: { subtype: 'success', request_id: id, response: { behavior: 'allow', updatedInput: line.request.input } } })
      }
    }
  })()
  const answerTo = (id: string) => client.waitFor((l) => l.type === 'control_response' && l.response.request_id === id)
  client.send({
    type: 'control_request',
    request_id: 'init',
    request: { subtype: 'initialize', hooks: { PreToolUse: [{ hookCallbackIds: ['silent'], timeout: 1 }] }, sdkMcpServers: ['broken'] },
  })
  const answers = new Map<string, Line>()
  answers.set('init', await answerTo('init'))
  client.send('{"type":"control_request","request_id":"m1","request":"oops"}')
  client.send({ type: 'control_request', request_id: 'u1', request: { subtype: 'rewind_files', user_message_id: 'x' } })
  client.send({ type: 'control_response', response: { subtype: 'success', request_id: 'never-sent', response: {} } })
  client.send('{"type":"control_request", "request_id": ')
  for (const id of ['m1', 'u1']) answers.set(id, await answerTo(id))
  client.send({ type: 'control_request', request_id: 's1', request: { subtype: 'mcp_status' } })
  answers.set('s1', await answerTo('s1'))
  client.send(userMessage('Say hi with echo.'))
  await client.waitFor((l) => l.type === 'result')
  stop = true
  const code = await client.end()
  await responder
  return { lines: client.lines, stderr: client.stderr, code, answers, mcpAttempts }
}

describe('the control protocol under a hostile client', () => {
  let mock: MockModel
  let run: HostileRun
  beforeAll(async () => {
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo hi' } }] }, { text: 'Said hi.' }] })
    run = await hostileRun(mock)
  }, 90_000)
  afterAll(() => mock?.close())

  it('answers initialize, and an SDK MCP server that fails is reported failed while the session goes on', () => {
    expect(run.answers.get('init')?.response).toMatchObject({ subtype: 'success', response: { hooks_applied: true, models: expect.any(Array), commands: expect.any(Array) } })
    expect(run.mcpAttempts).toBeGreaterThan(0)
    expect(run.answers.get('s1')?.response.response.mcpServers).toEqual([expect.objectContaining({ name: 'broken', status: 'failed', error: expect.stringContaining('SDK MCP server not found: broken') })])
    expect(run.lines.find((l) => l.type === 'system' && l.subtype === 'init')?.mcp_servers).toEqual([{ name: 'broken', status: 'failed', source: 'sdk' }])
  })

  it('a malformed request and an unknown subtype each get an error response; an unknown id and a broken line get one stderr sentence', () => {
    expect(run.answers.get('m1')?.response).toMatchObject({ subtype: 'error', error: expect.stringMatching(/malformed control_request \(request: /) })
    expect(run.answers.get('u1')?.response).toMatchObject({ subtype: 'error', error: expect.stringMatching(/^Rein does not support the control request "rewind_files"; it answers .*interrupt/) })
    expect(run.stderr).toContain('A control_response for request "never-sent" answers nothing Rein asked (or asked and gave up on); it was ignored.')
    expect(run.stderr).toMatch(/Line 6 of standard input is not JSON .*; it was ignored\./)
  })

  it('a hook callback that never answers times out with one sentence, and the call goes ahead as without it', () => {
    const timeouts = run.stderr.split('\n').filter((l) => l.includes('SDK callback silent'))
    expect(timeouts).toEqual(['rein: The PreToolUse hook "SDK callback silent" from <Agent SDK program> timed out after 1 s and was stopped; Rein went on without it.'])
    const cancelled = run.lines.filter((l) => l.type === 'control_cancel_request')
    expect(cancelled).toHaveLength(1)
    const result = run.lines.find((l) => l.type === 'user' && l.message.content[0]?.type === 'tool_result')
    expect(result?.message.content[0].content).toEqual([{ type: 'text', text: expect.stringContaining('hi') }])
    expect(run.lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Said hi.' })
    expect(run.code).toBe(0)
  })
})
