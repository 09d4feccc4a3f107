import { afterEach, describe, expect, it } from 'vitest'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, sandbox, spawnCli } from '../support/cli.js'
import { rpc } from '../support/rpc-client.js'
import { childOf, ofType, PARENT, parentAndChildren } from './support.js'

let mock: MockModel | undefined
let proc: ChildProcessWithoutNullStreams | undefined
afterEach(async () => {
  proc?.kill('SIGKILL')
  await mock?.close()
  mock = undefined
})

type Line = Record<string, unknown>
const liveOf = (l: Line) => (l.type === 'event' ? (l.event as { type: string; text?: string; event?: { type: string; data: Record<string, unknown> } }) : undefined)

describe('subagents over RPC', () => {
  it("asks the parent's front end for a child's call in default mode, labelled with the child, and steers the running child by id", async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [
        { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'slow check', prompt: 'Run the slow check.' } }] },
        { system: childOf('general'), match: 'Run the slow check.', toolCalls: [{ name: 'bash', arguments: { command: 'sleep 1.5' } }] },
        { system: childOf('general'), match: 'Also report the time.', text: 'Checked, and it is noon.' },
        { system: PARENT, text: 'The check passed.' },
      ],
    })
    proc = spawnCli(['rpc', '--ask-permissions'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    const c = rpc(proc)
    expect(await c.send({ type: 'prompt', message: 'check it' })).toMatchObject({ ok: true })

    const asked = await c.waitFor((l) => l.type === 'permission_request')
    expect(asked.reason).toMatch(/^Subagent general \(slow check, session [0-9a-f]{8}\): /)
    expect(asked.call).toMatchObject({ name: 'bash' })
    const start = await c.waitFor((l) => liveOf(l)?.event?.type === 'subagent/start')
    const childId = liveOf(start)?.event?.data.child as string
    expect(asked.subagent).toEqual({ agent: 'general', description: 'slow check', session: childId })
    expect(await c.send({ type: 'permission_response', requestId: asked.requestId, outcome: 'allow-once' })).toMatchObject({ ok: true })

    await c.waitFor((l) => liveOf(l)?.type === 'tool-progress' && /\[general\] bash/.test(liveOf(l)?.text ?? ''))
    expect(await c.send({ type: 'steer', session: 'no-such-child', message: 'x' })).toMatchObject({ ok: false, error: expect.stringMatching(/No subagent no-such-child is running/) })
    expect(await c.send({ type: 'steer', session: childId.slice(0, 8), message: 'Also report the time.' })).toMatchObject({ ok: true })
    await c.waitFor(c.idle(1))

    const { parent, children } = parentAndChildren(box.home)
    const result = ofType(parent, 'tool/result')[0].data as { content: { text: string }[]; isError: boolean }
    expect(result).toMatchObject({ isError: false, content: [{ text: 'Checked, and it is noon.' }] })
    const steering = ofType(children[0], 'steering/message')[0].data as { content: { text: string }[] }
    expect(steering.content).toEqual([{ type: 'text', text: 'Also report the time.' }])
    expect(ofType(children[0], 'tool/result')[0].data).toMatchObject({ isError: false })
  })
})
