import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { CLIENT_INIT, startReinAcp, type ReinAcp } from '../acp/support.js'
import { requireBuiltCli } from '../context/cli-support.js'
import { fixtureWorkspace } from '../slash/support.js'

/** A plan-mode session in an editor: the plan is offered for approval, shown as the plan, and approved into edits. */

let ws: ReturnType<typeof fixtureWorkspace>
let mock: MockModel
let rein: ReinAcp

beforeAll(async () => {
  requireBuiltCli()
  ws = fixtureWorkspace()
  mock = await startMockModel()
  rein = startReinAcp({ home: ws.home, baseUrl: mock.url, cwd: ws.cwd })
  await rein.connection.agent.request('initialize', CLIENT_INIT)
})
afterAll(async () => {
  if (rein.child.exitCode === null) rein.child.kill('SIGKILL')
  await mock.close()
  rmSync(ws.base, { recursive: true, force: true })
})

const PLAN = '1. Add `sub` to src/sub.ts\n2. Export it'

describe('plan mode in ACP', () => {
  it('goes from plan to approved edits: approve-and-accept-edits, a plan update, the mode update, then the write', async () => {
    mock.push(
      { toolCalls: [{ name: 'exit_plan_mode', arguments: { plan: PLAN } }] },
      { toolCalls: [{ name: 'write', arguments: { file_path: 'src/sub.ts', content: 'export const sub = 1\n' } }] },
      { text: 'Done.' },
    )
    const { sessionId } = await rein.connection.agent.request('session/new', { cwd: ws.cwd, mcpServers: [] })
    await rein.connection.agent.request('session/set_mode', { sessionId, modeId: 'plan' })
    rein.permissionChoices.push('allow-always')
    const answer = await rein.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'add sub' }] })
    expect(answer.stopReason).toBe('end_turn')

    expect(rein.permissionRequests).toHaveLength(1)
    expect(rein.permissionRequests[0].options.map((o) => o.name)).toEqual([
      'Approve the plan (ask before edits)',
      'Approve the plan and accept edits',
      'Keep planning',
    ])
    const updates = rein.updatesOf(sessionId)
    const plan = updates.find((u) => u.sessionUpdate === 'plan')
    expect(plan).toEqual({
      sessionUpdate: 'plan',
      entries: [
        { content: 'Add `sub` to src/sub.ts', priority: 'medium', status: 'pending' },
        { content: 'Export it', priority: 'medium', status: 'pending' },
      ],
    })
    const modes = updates.filter((u) => u.sessionUpdate === 'current_mode_update').map((u) => (u as { currentModeId: string }).currentModeId)
    expect(modes.at(-1)).toBe('accept-edits')
    expect(readFileSync(join(ws.cwd, 'src/sub.ts'), 'utf8')).toBe('export const sub = 1\n')
  })
})
