import { afterEach, describe, expect, it } from 'vitest'
import { setTimeout as sleep } from 'node:timers/promises'
import { openAgentWithContext } from '../../src/runtime/open.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox, spawnCli } from '../support/cli.js'
import { childOf, ofType, PARENT, parentAndChildren } from './support.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

const systemOf = (r: { body: unknown }) => String((r.body as { messages: { content: unknown }[] }).messages[0]?.content ?? '')

/** Resolves once the mock has received a request from a child of `type`. */
async function childRequestArrived(m: MockModel, type: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (m.requests.some((q) => systemOf(q).includes(childOf(type)))) return
    await sleep(25)
  }
  throw new Error(`no request from a ${type} child reached the mock`)
}

describe('watching children in process', () => {
  it("tells an observer of each child as it starts, with the task call's id, so a front end can follow its live events", async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [
        { system: PARENT, toolCalls: [{ id: 'call_t', name: 'task', arguments: { description: 'd', prompt: 'Say hi.', subagent_type: 'explore' } }] },
        { system: childOf('explore'), text: 'hi' },
        { system: PARENT, text: 'It said hi.' },
      ],
    })
    const { agent, subagents } = await openAgentWithContext({ cwd: box.cwd, home: box.home, env: cliEnv({ url: mock.url, home: box.home }) })
    const seen: string[] = []
    subagents.onChild((child) => {
      seen.push(`${child.callId} ${child.type} ${child.depth}`)
      child.agent.subscribe((live) => {
        if (live.type === 'text-delta') seen.push(`delta ${live.text}`)
      })
    })
    agent.followUp('delegate')
    await agent.whenIdle()
    await agent.close()
    expect(seen).toEqual(['call_t explore 1', 'delta hi'])
  })
})

describe('cancelling and killing a parent during a child', () => {
  it("cancelling the parent's turn cancels the running child; both logs close the turn as aborted", async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [
        { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'slow', prompt: 'Think for a long time.' } }] },
        { system: childOf('general'), delayMs: 20_000, text: 'Too late.' },
      ],
    })
    const { agent } = await openAgentWithContext({ cwd: box.cwd, home: box.home, env: cliEnv({ url: mock.url, home: box.home }) })
    agent.followUp('delegate it')
    await childRequestArrived(mock, 'general')
    agent.cancel()
    expect(await agent.whenIdle()).toMatchObject({ reason: 'aborted' })
    await agent.close()

    const { parent, children } = parentAndChildren(box.home)
    expect(ofType(children[0], 'turn/end').map((e) => e.data)).toEqual([{ turn: 1, reason: 'aborted' }])
    expect(ofType(parent, 'subagent/end')[0].data).toMatchObject({ outcome: 'aborted', child: children[0].header.id })
    expect(ofType(parent, 'tool/result')[0].data).toMatchObject({ isError: true, content: [{ text: 'The subagent was cancelled before it finished.' }] })
    expect(mock.requests).toHaveLength(2)
  })

  it("a parent killed (SIGKILL) during a child resumes with a result saying the child's outcome is unknown, and both logs verify", async () => {
    const box = sandbox()
    const env = cliEnv({ url: undefined, home: box.home })
    mock = await startMockModel({
      script: [
        { system: PARENT, match: 'delegate it', toolCalls: [{ name: 'task', arguments: { description: 'slow', prompt: 'Think for a long time.' } }] },
        { system: childOf('general'), match: 'Think for a long time.', toolCalls: [{ name: 'ls', arguments: {} }] },
        { system: childOf('general'), match: 'Think for a long time.', delayMs: 30_000, text: 'Too late.' },
        { system: PARENT, match: 'what happened?', text: 'The child was cut off.' },
      ],
    })
    env.DEEPSEEK_BASE_URL = mock.url
    const proc = spawnCli(['-p', 'delegate it', '--permission-mode', 'bypass'], { cwd: box.cwd, env })
    proc.stdin.end()
    let stderr = ''
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const exited = new Promise((resolve) => proc.on('close', resolve))
    for (let i = 0; i < 400 && mock.requests.filter((q) => systemOf(q).includes(childOf('general'))).length < 2; i++) await sleep(25)
    proc.kill('SIGKILL')
    await exited
    expect(stderr).toBe('')

    const before = parentAndChildren(box.home)
    const r = await runCli(['-p', 'what happened?', '--resume', before.parent.header.id], { cwd: box.cwd, env })
    expect(r.stderr).toBe('')
    expect(r.stdout).toContain('The child was cut off.')

    const { parent, children } = parentAndChildren(box.home)
    const result = ofType(parent, 'tool/result')[0].data as { isError: boolean; content: { text: string }[] }
    expect(result.isError).toBe(true)
    expect(result.content[0].text).toMatch(new RegExp(`^The outcome of this subagent is unknown: .*session ${children[0].header.id}\\) ends without a finished answer`))
    expect(ofType(parent, 'subagent/end')[0].data).toMatchObject({ outcome: 'unknown', child: children[0].header.id })
    // The child's log was repaired too: its open turn is closed as interrupted.
    expect(ofType(children[0], 'turn/end').map((e) => e.data)).toEqual([{ turn: 1, reason: 'interrupted' }])
    for (const log of [parent, children[0]]) {
      const v = await runCli(['sessions', 'verify', log.header.id], { cwd: box.cwd, env })
      expect(v.code, v.stdout + v.stderr).toBe(0)
    }
  })
})
