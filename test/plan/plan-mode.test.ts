import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { MockModel } from '../support/mock-model.js'
import { messagesOf, runRein, userText } from '../context/cli-support.js'
import { eachTestInFixture, envFor, type FixtureWorkspace } from '../slash/support.js'
import { AskingRpc, sessionEvents } from './support.js'

/** Plan mode that ends in an approved plan, through the built CLI against the mock model. */

let ws: FixtureWorkspace
let mock: MockModel
eachTestInFixture((w, m) => ((ws = w), (mock = m)))

const PLAN = '## Plan\n\n1. Add `sub` to src/app.ts\n2. Write a test'
const exitPlan = { toolCalls: [{ name: 'exit_plan_mode', arguments: { plan: PLAN } }] }
const writeSub = { toolCalls: [{ name: 'write', arguments: { file_path: 'src/sub.ts', content: 'export const sub = (a: number, b: number) => a - b\n' } }] }
const toolResults = (index: number) => messagesOf(mock, index).filter((m) => m.role === 'tool').map((m) => String(m.content))
const print = (...args: string[]) => runRein(['--cwd', ws.cwd, ...args], envFor(mock, ws))

describe('plan mode from -p', () => {
  it('--approve-plan accept-edits takes a plan to approved edits in one run', async () => {
    mock.push(exitPlan, writeSub, { text: 'Done.' })
    const result = await print('-p', 'add sub', '--permission-mode', 'plan', '--approve-plan', 'accept-edits')
    expect(result.code).toBe(0)
    expect(readFileSync(join(ws.cwd, 'src/sub.ts'), 'utf8')).toContain('a - b')
    expect(toolResults(1)[0]).toBe(
      'The user approved your plan. Plan mode is over and the permission mode is now accept-edits (file edits are allowed without asking). Carry out the plan.',
    )
    const events = sessionEvents(ws.home)
    const review = events.find((e) => e.type === 'plan/reviewed')!
    expect(review.data).toEqual({ callId: expect.any(String), plan: PLAN, outcome: 'approved', mode: 'accept-edits' })
    expect(events.findIndex((e) => e.type === 'plan/reviewed')).toBeLessThan(events.findIndex((e) => e.type === 'tool/call'))
    expect(events.find((e) => e.type === 'permission/mode')!.data).toEqual({ mode: 'accept-edits', previous: 'plan' })
    expect(result.stderr).toContain(`rein: plan approved; continuing in accept-edits mode.\n${PLAN}\n`)
  })

  it('the model learns of the new mode from the runtime facts at the next step', async () => {
    mock.push(exitPlan, { text: 'ok' })
    await print('-p', 'add sub', '--permission-mode', 'plan', '--approve-plan', 'default')
    const facts = messagesOf(mock, 1).filter((m) => m.role === 'user' && userText(m).includes('Permission mode:')).map(userText)
    expect(facts.at(-1)).toContain('- Permission mode: default')
  })

  it('without --approve-plan nothing can approve, the plan is logged and shown, and no file changes', async () => {
    mock.push(exitPlan, writeSub, { text: 'Here is the plan.' })
    const result = await print('-p', 'add sub', '--permission-mode', 'plan')
    expect(toolResults(1)[0]).toContain('The plan needs the user’s approval and nothing here can ask for it')
    expect(existsSync(join(ws.cwd, 'src/sub.ts'))).toBe(false)
    expect(sessionEvents(ws.home).find((e) => e.type === 'plan/reviewed')!.data.outcome).toBe('unanswered')
    expect(result.stderr).toContain('approve plans with --approve-plan default or --approve-plan accept-edits.')
  })

  it('exit_plan_mode outside plan mode is refused and changes nothing', async () => {
    mock.push(exitPlan, { text: 'ok' })
    await print('-p', 'add sub', '--approve-plan', 'accept-edits')
    expect(toolResults(1)[0]).toBe(
      'Error: permission denied: exit_plan_mode is only for plan mode, and the permission mode is default; carry on with the task without it.',
    )
    const events = sessionEvents(ws.home)
    expect(events.some((e) => e.type === 'plan/reviewed' || e.type === 'permission/mode')).toBe(false)
  })
})

describe('plan mode with a front end that asks (rpc --ask-permissions)', () => {
  it('keeping planning with feedback reaches the model verbatim as steering, after the refused call', async () => {
    mock.push(exitPlan, { text: 'Revised.' })
    const rpc = new AskingRpc(['--cwd', ws.cwd, '--permission-mode', 'plan'], envFor(mock, ws))
    try {
      rpc.send({ type: 'prompt', message: 'add sub' })
      const ask = await rpc.next((l) => l.type === 'permission_request')
      expect((ask.call as { name: string }).name).toBe('exit_plan_mode')
      expect(ask.reason).toBe(`The plan is ready for review:\n\n${PLAN}`)
      const from = rpc.lines.length
      rpc.send({ type: 'permission_response', requestId: ask.requestId, outcome: 'deny', note: 'Use "subtract", and\nadd a test first.' })
      await rpc.idleAfter(from)
    } finally {
      await rpc.close()
    }
    const messages = messagesOf(mock, 1)
    const tool = messages.findIndex((m) => m.role === 'tool')
    expect(String(messages[tool].content)).toContain('The user did not approve the plan and wants you to keep planning; their feedback follows.')
    expect(userText(messages[tool + 1])).toBe('Use "subtract", and\nadd a test first.')
    const events = sessionEvents(ws.home)
    expect(events.find((e) => e.type === 'plan/reviewed')!.data).toMatchObject({ outcome: 'kept-planning', feedback: 'Use "subtract", and\nadd a test first.' })
    expect(events.some((e) => e.type === 'permission/mode')).toBe(false)
  })

  it('approving with allow-always continues in accept-edits and the edit runs without another question', async () => {
    mock.push(exitPlan, writeSub, { text: 'Done.' })
    const rpc = new AskingRpc(['--cwd', ws.cwd, '--permission-mode', 'plan'], envFor(mock, ws))
    try {
      rpc.send({ type: 'prompt', message: 'add sub' })
      const ask = await rpc.next((l) => l.type === 'permission_request')
      const from = rpc.lines.length
      rpc.send({ type: 'permission_response', requestId: ask.requestId, outcome: 'allow-always' })
      await rpc.idleAfter(from)
      expect(rpc.lines.filter((l) => l.type === 'permission_request')).toHaveLength(1)
    } finally {
      await rpc.close()
    }
    expect(readFileSync(join(ws.cwd, 'src/sub.ts'), 'utf8')).toContain('a - b')
  })
})

describe('an approved plan across compaction', () => {
  it('after a compaction shadows the approving call, the next request carries the approved plan again', async () => {
    mock.push(exitPlan, { text: 'Approved, starting.' }, { text: 'Second answer.' }, { text: 'Summary of the early work.' }, { text: 'Third answer.' })
    const rpc = new AskingRpc(['--cwd', ws.cwd, '--permission-mode', 'plan'], envFor(mock, ws))
    try {
      rpc.send({ type: 'prompt', message: 'add sub' })
      const ask = await rpc.next((l) => l.type === 'permission_request')
      let from = rpc.lines.length
      rpc.send({ type: 'permission_response', requestId: ask.requestId, outcome: 'allow-once' })
      await rpc.idleAfter(from)
      from = rpc.lines.length
      rpc.send({ type: 'prompt', message: 'second' })
      await rpc.idleAfter(from)
      rpc.send({ type: 'compact', id: 'c1' })
      const compacted = await rpc.next((l) => l.type === 'response' && l.id === 'c1')
      expect(compacted.ok).toBe(true)
      from = rpc.lines.length
      rpc.send({ type: 'prompt', message: 'third' })
      await rpc.idleAfter(from)
    } finally {
      await rpc.close()
    }
    const last = messagesOf(mock, mock.requests.length - 1)
    expect(last.some((m) => m.role === 'assistant' && JSON.stringify(m).includes('exit_plan_mode'))).toBe(false)
    const restored = last.filter((m) => m.role === 'user' && userText(m).includes('The plan the user approved earlier'))
    expect(restored.map(userText)).toEqual([
      `<system-reminder>\nThe plan the user approved earlier in this session (kept across compaction):\n\n${PLAN}\n</system-reminder>`,
    ])
  })
})
