import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { CLIENT_INIT, startReinAcp, tempDir, until, type Frame, type ReinAcp } from './support.js'
import { CLI } from '../support/cli.js'

/**
 * A scripted editor conversation, recorded frame by frame and compared with `fixtures/transcript.json`. Run with
 * `UPDATE_ACP_TRANSCRIPT=1` to rewrite the fixture after an intended change, then read the diff before committing.
 */
const FIXTURE = join(import.meta.dirname, 'fixtures/transcript.json')

let mock: MockModel
let rein: ReinAcp | undefined

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`Build Rein first (npx tsc -p .): ${CLI} is missing.`)
})

afterAll(async () => {
  if (rein && rein.child.exitCode === null) rein.child.kill('SIGKILL')
  await mock?.close()
})

/**
 * Replaces what differs between runs (ids, temp paths, the version, and cost amounts — priced at the hour each answer
 * came, peak or off-peak; test/acp/mapping.test.ts checks them with a fixed clock) with fixed names; keeps the rest.
 */
function normalize(frames: Frame[], names: Map<string, string>): { sent: unknown[]; received: unknown[] } {
  const replace = (text: string): string => {
    let out = text
    for (const [from, to] of names) out = out.split(from).join(to)
    return out
  }
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return replace(value)
    if (Array.isArray(value)) return value.map(walk)
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'version' && typeof v === 'string' ? '<version>' : k === 'amount' && typeof v === 'number' ? '<usd>' : walk(v)]))
    }
    return value
  }
  // Each direction is in order; how the two interleave depends on scheduling, so they are kept apart.
  return {
    sent: frames.filter((f) => f.direction === 'sent').map((f) => walk(f.message)),
    received: frames.filter((f) => f.direction === 'received').map((f) => walk(f.message)),
  }
}

it('a scripted editor session produces the recorded JSON-RPC transcript', async () => {
  mock = await startMockModel({
    script: [
      {
        reasoning: 'Plan first.',
        toolCalls: [
          {
            id: 'call_plan',
            name: 'todo_write',
            arguments: { todos: [{ content: 'Write hello.txt', status: 'in_progress' }] },
          },
        ],
      },
      { toolCalls: [{ id: 'call_write', name: 'write', arguments: { file_path: 'hello.txt', content: 'hello\n' } }] },
      { text: 'Wrote hello.txt.' },
    ],
  })
  const home = tempDir('rein-acp-home-')
  const project = tempDir('rein-acp-project-')
  rein = startReinAcp({ home, baseUrl: mock.url, cwd: project })
  const agent = rein.connection.agent

  await agent.request('initialize', CLIENT_INIT)
  const { sessionId } = await agent.request('session/new', { cwd: project, mcpServers: [] })
  await until(() => rein!.updatesOf(sessionId).some((u) => u.sessionUpdate === 'available_commands_update'), 'the command list')
  await agent.request('session/prompt', {
    sessionId,
    prompt: [
      { type: 'text', text: 'Create the file described here: ' },
      { type: 'resource', resource: { uri: `file://${project}/spec.md`, text: 'hello.txt holds "hello".', mimeType: 'text/markdown' } },
    ],
  })
  await agent.request('session/set_mode', { sessionId, modeId: 'plan' })
  expect(await rein.disconnect()).toBe(0)

  const transcript = normalize(
    rein.frames,
    new Map([
      [sessionId, '<session>'],
      [project, '<project>'],
      [home, '<home>'],
    ]),
  )
  const text = JSON.stringify(transcript, null, 2) + '\n'
  if (process.env.UPDATE_ACP_TRANSCRIPT === '1' || !existsSync(FIXTURE)) {
    if (process.env.UPDATE_ACP_TRANSCRIPT !== '1') {
      throw new Error(`${FIXTURE} is missing; run this test with UPDATE_ACP_TRANSCRIPT=1 to record it.`)
    }
    writeFileSync(FIXTURE, text)
  }
  expect(JSON.parse(text)).toEqual(JSON.parse(readFileSync(FIXTURE, 'utf8')))
})
