import { describe, expect, it } from 'vitest'
import type { AnyEvent } from '../../src/session/events.js'
import { Session } from '../../src/session/session.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import { repairAcrossChildren } from '../../src/subagents/repair.js'

const usage = { inputUncached: 100, inputCacheRead: 0, output: 10, reasoning: 0 }

/** A parent cut off inside a `task` call, and its child, whose log ends as `finish` leaves it. */
async function cutOffPair(store: MemoryStore, finish: (child: Session) => void): Promise<{ parent: string; child: string }> {
  const parent = await Session.create(store, { cwd: '/w' })
  parent.append('turn/start', { turn: 1 })
  parent.append('step/start', { turn: 1, step: 1 })
  parent.append('user/message', { id: 'u1', content: [{ type: 'text', text: 'go' }], source: { kind: 'user' } })
  parent.append('assistant/message', {
    turn: 1,
    step: 1,
    message: { role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'task', arguments: '{"description":"d","prompt":"p"}' }] },
    usage,
  })
  parent.append('tool/call', { turn: 1, step: 1, callId: 'c1', name: 'task', arguments: '{"description":"d","prompt":"p"}' })
  const child = await Session.create(store, { cwd: '/w', subagent: { parent: parent.id, callId: 'c1', agent: 'general' } })
  parent.append('subagent/start', { callId: 'c1', child: child.id, agent: 'general', description: 'd' })
  child.append('turn/start', { turn: 1 })
  child.append('step/start', { turn: 1, step: 1 })
  child.append('user/message', { id: 'u2', content: [{ type: 'text', text: 'p' }], source: { kind: 'subagent' } })
  finish(child)
  await parent.close()
  await child.close()
  return { parent: parent.id, child: child.id }
}

describe('crash repair across a parent and its child', () => {
  it("gives the cut-off task call the child's answer when the child had finished, and logs its end", async () => {
    const store = new MemoryStore()
    const ids = await cutOffPair(store, (child) => {
      child.append('request/header', { reason: 'initial', config: { model: 'deepseek-v4-flash', effort: 'high' }, system: 's', tools: [] })
      child.append('assistant/message', { turn: 1, step: 1, message: { role: 'assistant', content: [{ type: 'text', text: 'The answer is 42.' }] }, usage })
      child.append('step/end', { turn: 1, step: 1 })
      child.append('turn/end', { turn: 1, reason: 'completed' })
    })
    const parent = await Session.load(store, ids.parent, { amendRepair: repairAcrossChildren(store) })
    const appended = parent.repair.appended as AnyEvent[]
    expect(appended.map((e) => e.type)).toEqual(['subagent/end', 'tool/result', 'step/end', 'turn/end'])
    expect(appended[0].data).toMatchObject({ callId: 'c1', child: ids.child, outcome: 'completed', usage })
    expect(appended[1].data).toMatchObject({ callId: 'c1', isError: false, content: [{ type: 'text', text: 'The answer is 42.' }] })
    await parent.close()
  })

  it('says the outcome is unknown, with the last message, when the child was cut off too, and repairs the child', async () => {
    const store = new MemoryStore()
    const ids = await cutOffPair(store, (child) => {
      child.append('assistant/message', {
        turn: 1,
        step: 1,
        message: { role: 'assistant', content: [{ type: 'text', text: 'Halfway there.' }, { type: 'tool-call', id: 'k1', name: 'ls', arguments: '{}' }] },
      })
      child.append('tool/call', { turn: 1, step: 1, callId: 'k1', name: 'ls', arguments: '{}' })
    })
    const parent = await Session.load(store, ids.parent, { amendRepair: repairAcrossChildren(store) })
    const result = (parent.repair.appended as AnyEvent[]).find((e) => e.type === 'tool/result')
    expect(result?.data).toMatchObject({ isError: true, error: { code: 'outcome-unknown' } })
    expect(JSON.stringify(result?.data)).toContain('Halfway there.')
    await parent.close()
    const child = await Session.load(store, ids.child)
    expect(child.repair.appended).toEqual([])
    expect(child.last('turn/end')?.data).toEqual({ turn: 1, reason: 'interrupted' })
    await child.close()
  })

  it('names a child log that cannot be read in the result instead of failing the resume', async () => {
    const store = new MemoryStore()
    const parent = await Session.create(store, { cwd: '/w' })
    parent.append('turn/start', { turn: 1 })
    parent.append('step/start', { turn: 1, step: 1 })
    parent.append('tool/call', { turn: 1, step: 1, callId: 'c1', name: 'task', arguments: '{}' })
    parent.append('subagent/start', { callId: 'c1', child: 'missing-child', agent: 'general', description: 'd' })
    await parent.close()
    const loaded = await Session.load(store, parent.id, { amendRepair: repairAcrossChildren(store) })
    const result = (loaded.repair.appended as AnyEvent[]).find((e) => e.type === 'tool/result')
    expect(JSON.stringify(result?.data)).toMatch(/its log \(session missing-child\) could not be read/)
    await loaded.close()
  })
})
