import { afterEach, describe, expect, it } from 'vitest'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { CLIENT_INIT, startReinAcp, tempDir, type ReinAcp } from '../acp/support.js'
import { childOf, PARENT } from './support.js'

let mock: MockModel | undefined
let rein: ReinAcp | undefined
afterEach(async () => {
  if (rein && rein.child.exitCode === null) rein.child.kill('SIGKILL')
  await mock?.close()
  mock = undefined
})

describe('subagents over ACP', () => {
  it("sends a child's progress as updates of the parent's task call, and counts its cost in usage, shown apart", async () => {
    const project = tempDir('rein-acp-project-')
    mock = await startMockModel({
      script: [
        { system: PARENT, toolCalls: [{ id: 'call_task', name: 'task', arguments: { description: 'find notes', prompt: 'Where are the notes?', subagent_type: 'explore' } }] },
        { system: childOf('explore'), toolCalls: [{ name: 'glob', arguments: { pattern: '*.md' } }] },
        { system: childOf('explore'), text: 'There are no notes.' },
        { system: PARENT, text: 'No notes here.' },
      ],
    })
    const home = tempDir('rein-acp-home-')
    rein = startReinAcp({ home, baseUrl: mock.url, cwd: home })
    await rein.connection.agent.request('initialize', CLIENT_INIT)
    const { sessionId } = await rein.connection.agent.request('session/new', { cwd: project, mcpServers: [] })
    const response = await rein.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'find the notes' }] })
    expect(response.stopReason).toBe('end_turn')

    const updates = rein.updatesOf(sessionId)
    expect(updates).toContainEqual(expect.objectContaining({ sessionUpdate: 'tool_call', toolCallId: 'call_task', title: 'Subagent explore: find notes', kind: 'think' }))
    const progress = updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'call_task' && u.status === 'in_progress')
    expect(JSON.stringify(progress)).toContain('[explore] glob {\\"pattern\\":\\"*.md\\"}')
    expect(updates).toContainEqual(expect.objectContaining({ sessionUpdate: 'tool_call_update', toolCallId: 'call_task', status: 'completed' }))

    const usage = updates.filter((u) => u.sessionUpdate === 'usage_update') as { cost: { amount: number }; _meta?: { rein?: { subagentCostUsd: number } } }[]
    const before = usage[0]
    const after = usage.at(-1)!
    expect(before._meta).toBeUndefined()
    const childCost = after._meta?.rein?.subagentCostUsd ?? 0
    expect(childCost).toBeGreaterThan(0)
    expect(after.cost.amount).toBeGreaterThan(before.cost.amount + childCost - 1e-6)
  })

  it("asks the editor for a child's call with a title naming the child, and follows the answer", async () => {
    const project = tempDir('rein-acp-project-')
    mock = await startMockModel({
      script: [
        { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'run checks', prompt: 'Run the checks.' } }] },
        { system: childOf('general'), toolCalls: [{ id: 'child_bash', name: 'bash', arguments: { command: 'echo checked' } }] },
        { system: childOf('general'), text: 'The checks ran.' },
        { system: PARENT, text: 'Checked.' },
      ],
    })
    const home = tempDir('rein-acp-home-')
    rein = startReinAcp({ home, baseUrl: mock.url, cwd: home })
    await rein.connection.agent.request('initialize', CLIENT_INIT)
    const { sessionId } = await rein.connection.agent.request('session/new', { cwd: project, mcpServers: [] })
    rein.permissionChoices.push('allow-once')
    const response = await rein.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'check' }] })
    expect(response.stopReason).toBe('end_turn')
    expect(rein.permissionRequests).toHaveLength(1)
    expect(rein.permissionRequests[0].toolCall).toMatchObject({ toolCallId: 'child_bash', title: 'Subagent general (run checks): `echo checked`' })
    const childAnswer = mock.requests.at(-2)?.body as { messages: { role: string; content: string }[] }
    expect(childAnswer.messages.find((m) => m.role === 'tool')?.content).toContain('checked')
  })
})
