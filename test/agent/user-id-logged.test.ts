import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openAgentWithContext } from '../../src/runtime/open.js'
import { defaultUserId } from '../../src/llm/user-id.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

let root: string
let mock: MockModel | undefined
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'rein-user-id-')))
  mkdirSync(path.join(root, 'work'))
  mkdirSync(path.join(root, 'home'))
})
afterEach(async () => {
  await mock?.close()
  mock = undefined
  rmSync(root, { recursive: true, force: true })
})

/** One prompt through the real agent; returns the logged header's user id and the one DeepSeek received. */
async function runWith(options: { userId?: string; settings?: Record<string, unknown> }): Promise<{ logged: unknown; sent: unknown }> {
  const home = path.join(root, 'home')
  if (options.settings) writeFileSync(path.join(home, 'settings.json'), JSON.stringify(options.settings))
  mock = await startMockModel({ script: [{ text: 'done' }] })
  const { agent } = await openAgentWithContext({
    cwd: path.join(root, 'work'),
    home,
    env: { ...process.env, REIN_HOME: home, DEEPSEEK_BASE_URL: mock.url, DEEPSEEK_API_KEY: 'test-key' },
    ...(options.userId ? { userId: options.userId } : {}),
  })
  try {
    agent.followUp('hi')
    await agent.whenIdle()
    const header = agent.session.last('request/header')
    return { logged: header?.data.config.userId, sent: (mock.requests.at(-1)!.body as { user_id?: unknown }).user_id }
  } finally {
    await agent.close()
  }
}

describe("DeepSeek's user_id through the agent", () => {
  it('is the per-user default, in the logged request header and in the request DeepSeek receives', async () => {
    expect(await runWith({})).toEqual({ logged: defaultUserId(), sent: defaultUserId() })
  })

  it('is the one a fleet gives the agent, over userId in settings', async () => {
    expect(await runWith({ settings: { userId: 'team-a' } })).toEqual({ logged: 'team-a', sent: 'team-a' })
    await mock?.close()
    expect(await runWith({ userId: 'tenant-7_task-3', settings: { userId: 'team-a' } })).toEqual({ logged: 'tenant-7_task-3', sent: 'tenant-7_task-3' })
  })
})
