import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { NOT_RUN, UNKNOWN_OUTCOME } from '../../src/session/repair.js'
import { Session } from '../../src/session/session.js'
import { verifyEvents } from '../../src/session/verify.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { appendTurn } from './conversation.js'

let home: string
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rein-repair-'))
})
afterEach(async () => {
  await rm(home, { recursive: true, force: true })
})

/** A session whose process "died" in turn 2 after the model asked for two tools and only the first was logged. */
async function crashedMidTool(): Promise<{ id: string; path: string }> {
  const session = await Session.create(new JsonlStore(home), { cwd: '/repo' })
  appendTurn(session, 1, 'first')
  session.append('turn/start', { turn: 2 })
  session.append('step/start', { turn: 2, step: 1 })
  session.append('user/message', { id: 'u2', content: [{ type: 'text', text: 'delete the build' }], source: { kind: 'user' } })
  session.append('assistant/message', {
    turn: 2,
    step: 1,
    message: {
      role: 'assistant',
      content: [
        { type: 'tool-call', id: 'rm', name: 'bash', arguments: '{"command":"rm -rf build"}' },
        { type: 'tool-call', id: 'ls', name: 'bash', arguments: '{"command":"ls"}' },
      ],
    },
  })
  session.append('tool/call', { turn: 2, step: 1, callId: 'rm', name: 'bash', arguments: '{"command":"rm -rf build"}' })
  await session.flush()
  // The process "dies" here: the file is released without a clean close.
  await (session as unknown as { writer: { close(): Promise<void> } }).writer.close()
  return { id: session.id, path: session.path! }
}

describe('repair on load', () => {
  it('answers an open tool call with an error result saying its outcome is unknown, and one never started as not run', async () => {
    const crashed = await crashedMidTool()
    const loaded = await Session.load(new JsonlStore(home), crashed.id)
    const types = loaded.repair.appended.map((e) => e.type)
    expect(types).toEqual(['tool/result', 'tool/result', 'step/end', 'turn/end'])
    const [rm, ls, , end] = loaded.repair.appended
    expect(rm.data).toMatchObject({ callId: 'rm', isError: true, turn: 2, step: 1, content: [{ type: 'text', text: UNKNOWN_OUTCOME }] })
    expect(ls.data).toMatchObject({ callId: 'ls', isError: true, content: [{ type: 'text', text: NOT_RUN }] })
    expect(UNKNOWN_OUTCOME).toMatch(/unknown.*side effects.*before retrying/s)
    expect(end.data).toEqual({ turn: 2, reason: 'interrupted' })
    await loaded.close()
  })

  it('leaves a log that verifies cleanly and whose messages pair every tool call with a result', async () => {
    const crashed = await crashedMidTool()
    const loaded = await Session.load(new JsonlStore(home), crashed.id)
    expect(verifyEvents(loaded.header, loaded.events)).toEqual([])
    const tail = loaded.messages().slice(-3)
    expect(tail.map((m) => m.role)).toEqual(['assistant', 'tool', 'tool'])
    await loaded.close()
  })

  it('writes the repair durably by appending, keeping every earlier line byte for byte', async () => {
    const crashed = await crashedMidTool()
    const before = await readFile(crashed.path!, 'utf8')
    await (await Session.load(new JsonlStore(home), crashed.id)).close()
    const after = await readFile(crashed.path!, 'utf8')
    expect(after.startsWith(before)).toBe(true)
    expect(after.slice(before.length).trimEnd().split('\n')).toHaveLength(4)
    const again = await Session.load(new JsonlStore(home), crashed.id)
    expect(again.repair.appended).toEqual([])
    await again.close()
  })

  it('changes nothing in a log that ended cleanly', async () => {
    const session = await Session.create(new JsonlStore(home), { cwd: '/repo' })
    appendTurn(session, 1, 'only')
    await session.close()
    const before = await readFile(session.path!, 'utf8')
    const loaded = await Session.load(new JsonlStore(home), session.id)
    expect(loaded.repair).toEqual({ appended: [] })
    await loaded.close()
    expect(await readFile(session.path!, 'utf8')).toBe(before)
  })
})
