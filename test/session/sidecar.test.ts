import { appendFile, mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readSessionLog } from '../../src/session/load.js'
import { Session } from '../../src/session/session.js'
import { sidecarText, type SidecarBody } from '../../src/session/sidecar.js'
import { readSessionLogFromSidecar } from '../../src/session/sidecar-load.js'
import { sidecarProblems } from '../../src/session/sidecar-verify.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { appendTurn } from './conversation.js'

let home: string
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rein-sidecar-'))
})
afterEach(async () => {
  await rm(home, { recursive: true, force: true })
})

/** Turns of padding: each holds a few KB of tool output, so the log quickly outgrows its surface once compacted. */
function appendPaddedTurn(session: Session, turn: number): void {
  appendTurn(session, turn, `prompt ${turn} ${'x'.repeat(2000)}`, 2)
}

/**
 * A session of `turns` turns whose early turns were compacted into a summary (so its surface is small against the
 * log), then `after` more turns and a prompt still queued. Returns it closed.
 */
async function compactedSession(turns = 40, after = 3): Promise<{ id: string; path: string }> {
  const session = await Session.create(new JsonlStore(home), { cwd: '/repo' })
  for (let turn = 1; turn <= turns; turn++) appendPaddedTurn(session, turn)
  const surface = session.surface()
  const end = surface[surface.length - 1].seq
  session.append('turn/start', { turn: turns + 1 })
  session.append('compaction/start', { id: 'c1', trigger: 'auto', start: surface[0].seq, end })
  session.append(
    'context/message',
    { id: 's1', content: [{ type: 'text', text: 'Summary of the work so far.' }], source: { kind: 'compaction' } },
    { surfaceOp: { op: 'replace', start: surface[0].seq, end } },
  )
  session.append('compaction/end', { id: 'c1', outcome: 'replaced' })
  session.append('turn/end', { turn: turns + 1, reason: 'completed' })
  for (let turn = turns + 2; turn < turns + 2 + after; turn++) appendPaddedTurn(session, turn)
  session.append('todo/write', { todos: [{ content: 'ship it', status: 'in_progress' }] })
  session.append('inbox/queued', { id: 'q1', verb: 'followUp', content: [{ type: 'text', text: 'and then?' }], source: { kind: 'user' } })
  await session.close()
  return { id: session.id, path: session.path! }
}

/** The same session read both ways, for comparing what a running agent reads. */
async function bothWays(id: string) {
  const store = new JsonlStore(home)
  const full = await readSessionLog(store, id)
  const fast = await readSessionLogFromSidecar(store, id)
  return { full, fast }
}

const sidecarPath = (path: string): string => `${path}.resume`

describe('the resume sidecar', () => {
  it('is written at compaction, and a resume from it sees the same surface, messages and length as a full read', async () => {
    const { id, path } = await compactedSession()
    expect((await stat(sidecarPath(path))).size).toBeLessThan((await stat(path)).size / 2)
    const { full, fast } = await bothWays(id)
    expect(fast).toBeDefined()
    expect(fast!.sidecar).toBeDefined()
    expect(fast!.events.length).toBe(full.events.length)
    expect(fast!.surface.entries().map((e) => e.seq)).toEqual(full.surface.entries().map((e) => e.seq))
    expect(JSON.stringify(fast!.surface.messages())).toBe(JSON.stringify(full.surface.messages()))
    expect(fast!.end).toEqual(full.end)
    expect(fast!.header).toEqual(full.header)
  })

  it('reads the events after the sidecar from the log, so what came later is there too', async () => {
    const { id } = await compactedSession()
    const store = new JsonlStore(home)
    const later = await Session.load(store, id)
    appendPaddedTurn(later, 99)
    await later.close()
    const { full, fast } = await bothWays(id)
    expect(fast!.events.length).toBe(full.events.length)
    expect(fast!.events[full.events.length - 1]).toEqual(full.events[full.events.length - 1])
    expect(JSON.stringify(fast!.surface.messages())).toBe(JSON.stringify(full.surface.messages()))
  })

  it('holds what a running agent reads: the latest event of each type, pending prompts and the events by seq', async () => {
    const { id } = await compactedSession()
    const store = new JsonlStore(home)
    const session = await Session.load(store, id, { fromSidecar: true })
    const full = await readSessionLog(store, id)
    expect(session.last('todo/write')?.data.todos[0].content).toBe('ship it')
    expect(session.last('turn/start')?.data).toEqual(full.events.findLast((e) => e.type === 'turn/start')?.data)
    const queued = [...session.events].filter((e) => e.type === 'inbox/queued')
    expect(queued.map((e) => (e.data as { id: string }).id)).toEqual(['q1'])
    const seq = session.length - 1
    expect(session.events[seq]).toEqual(full.events[seq])
    expect([...session.events].length).toBeLessThan(full.events.length)
    await session.close()
  })

  it('appends after a sidecar resume with the right seqs, and the log still verifies and reloads in full', async () => {
    const { id } = await compactedSession()
    const store = new JsonlStore(home)
    const session = await Session.load(store, id, { fromSidecar: true })
    const before = session.length
    const event = session.append('session/title', { title: 'resumed' })
    expect(event.seq).toBe(before)
    await session.close()
    const full = await readSessionLog(new JsonlStore(home), id)
    expect(full.events.length).toBe(before + 1)
    expect(await sidecarProblems(new JsonlStore(home), full)).toEqual([])
  })

  it('repairs a crashed turn after the sidecar the same way as a full load', async () => {
    const { id, path } = await compactedSession()
    const store = new JsonlStore(home)
    const session = await Session.load(store, id)
    session.append('turn/start', { turn: 500 })
    session.append('step/start', { turn: 500, step: 1 })
    await session.flush()
    await (session as unknown as { writer: { close(): Promise<void> } }).writer.close()
    await appendFile(path, '{"seq":')
    const resumed = await Session.load(new JsonlStore(home), id, { fromSidecar: true })
    expect(resumed.repair.appended.map((e) => e.type)).toEqual(['step/end', 'turn/end'])
    expect(resumed.repair.tornLine).toBeDefined()
    await resumed.close()
  })

  it('checkpoints a long turn by its open step, and repair after a crash mid-step matches a full load', async () => {
    const store = new JsonlStore(home)
    const session = await Session.create(store, { cwd: '/repo' })
    session.append('turn/start', { turn: 1 })
    session.append('user/message', { id: 'u', content: [{ type: 'text', text: 'work a long while' }], source: { kind: 'user' } })
    for (let step = 1; step <= 30; step++) {
      session.append('step/start', { turn: 1, step })
      const call = { type: 'tool-call' as const, id: `c${step}`, name: 'bash', arguments: '{"command":"make"}' }
      session.append('assistant/message', { turn: 1, step, message: { role: 'assistant', content: [call] } })
      session.append('tool/call', { turn: 1, step, callId: call.id, name: 'bash', arguments: call.arguments })
      session.append('tool/result', { turn: 1, step, callId: call.id, content: [{ type: 'text', text: 'y'.repeat(4000) }], isError: false })
      session.append('step/end', { turn: 1, step })
    }
    session.append('step/start', { turn: 1, step: 31 })
    const surface = session.surface()
    const end = surface[surface.length - 1].seq
    session.append('compaction/start', { id: 'c', trigger: 'auto', start: surface[0].seq, end })
    session.append('context/message', { id: 's', content: [{ type: 'text', text: 'Summary.' }], source: { kind: 'compaction' } }, { surfaceOp: { op: 'replace', start: surface[0].seq, end } })
    session.append('compaction/end', { id: 'c', outcome: 'replaced' })
    const call = { type: 'tool-call' as const, id: 'c31', name: 'bash', arguments: '{"command":"make test"}' }
    session.append('assistant/message', { turn: 1, step: 31, message: { role: 'assistant', content: [call] } })
    session.append('tool/call', { turn: 1, step: 31, callId: call.id, name: 'bash', arguments: call.arguments })
    await session.flush()
    await (session as unknown as { sidecar: { settle(): Promise<void> } }).sidecar.settle()
    await (session as unknown as { writer: { close(): Promise<void> } }).writer.close()
    expect((await stat(sidecarPath(session.path!))).size).toBeLessThan((await stat(session.path!)).size / 2)

    const text = await readFile(session.path!)
    const fast = await Session.load(new JsonlStore(home), session.id, { fromSidecar: true })
    expect([...fast.events].length).toBeLessThan(fast.length / 2)
    const fastRepair = fast.repair.appended.map((e) => ({ type: e.type, data: e.data }))
    await fast.close()
    await writeFile(session.path!, text)
    await rm(sidecarPath(session.path!))
    const full = await Session.load(new JsonlStore(home), session.id)
    expect(fastRepair).toEqual(full.repair.appended.map((e) => ({ type: e.type, data: e.data })))
    expect(fastRepair.map((e) => e.type)).toEqual(['tool/result', 'step/end', 'turn/end'])
    await full.close()
  })

  describe('falls back to reading the whole log, with the same result, when', () => {
    const fallsBack = async (id: string): Promise<void> => {
      const { full, fast } = await bothWays(id)
      expect(fast).toBeUndefined()
      const session = await Session.load(new JsonlStore(home), id, { fromSidecar: true })
      // A log cut mid-turn is repaired on load: compare what was read, before the repair's own events.
      expect(session.length - session.repair.appended.length).toBe(full.events.length)
      const read = full.surface.messages()
      expect(JSON.stringify(session.messages().slice(0, read.length))).toBe(JSON.stringify(read))
      await session.close()
    }

    it('the sidecar is truncated', async () => {
      const { id, path } = await compactedSession()
      const size = (await stat(sidecarPath(path))).size
      await truncate(sidecarPath(path), Math.floor(size / 2))
      await fallsBack(id)
    })

    it('the sidecar belongs to another log', async () => {
      const one = await compactedSession()
      const other = await compactedSession()
      await writeFile(sidecarPath(one.path), await readFile(sidecarPath(other.path)))
      await fallsBack(one.id)
    })

    it('the log was truncated below what the sidecar covers', async () => {
      const { id, path } = await compactedSession()
      const size = (await stat(path)).size
      const text = await readFile(path, 'utf8')
      const cut = text.lastIndexOf('\n', Math.floor(size / 3)) + 1
      await truncate(path, cut)
      await fallsBack(id)
    })

    it('the log was rewritten after the sidecar (same length, other content)', async () => {
      const { id, path } = await compactedSession()
      const text = await readFile(path, 'utf8')
      const sidecar = JSON.parse((await readFile(sidecarPath(path), 'utf8')).split('\n')[1]) as { covers: { bytes: number } }
      const lastCovered = text.lastIndexOf('\n', sidecar.covers.bytes - 2) + 1
      const line = text.slice(lastCovered, sidecar.covers.bytes - 1)
      const changed = line.replace(/"time":(\d)/, (_, d: string) => `"time":${(Number(d) + 1) % 10}`)
      expect(changed).not.toBe(line)
      await writeFile(path, text.slice(0, lastCovered) + changed + text.slice(sidecar.covers.bytes - 1))
      await fallsBack(id)
    })

    it("the sidecar's content does not match its digest", async () => {
      const { id, path } = await compactedSession()
      const [envelope, body] = (await readFile(sidecarPath(path), 'utf8')).split('\n')
      await writeFile(sidecarPath(path), `${envelope}\n${body.replace('Summary of the work so far.', 'Something else entirely....')}\n`)
      await fallsBack(id)
    })

    it('there is no sidecar at all', async () => {
      const { id, path } = await compactedSession()
      await rm(sidecarPath(path))
      await fallsBack(id)
    })
  })

  it('is not written for a session whose surface is most of its log (nothing to gain)', async () => {
    const session = await Session.create(new JsonlStore(home), { cwd: '/repo' })
    for (let turn = 1; turn <= 5; turn++) appendPaddedTurn(session, turn)
    session.append('turn/start', { turn: 6 })
    session.append('compaction/start', { id: 'c', trigger: 'auto', start: 0, end: 0 })
    session.append('compaction/end', { id: 'c', outcome: 'no-gain' })
    session.append('turn/end', { turn: 6, reason: 'completed' })
    await session.close()
    await expect(stat(sidecarPath(session.path!))).rejects.toThrow()
  })
})

describe('sessions verify and the sidecar', () => {
  const problemsOf = async (id: string) => sidecarProblems(new JsonlStore(home), await readSessionLog(new JsonlStore(home), id))

  it('finds nothing when sidecar and log agree', async () => {
    const { id } = await compactedSession()
    expect(await problemsOf(id)).toEqual([])
  })

  it('notes a sidecar of another log, one the log was truncated under, and a truncated one: resume ignores them', async () => {
    const one = await compactedSession()
    const other = await compactedSession()
    await writeFile(sidecarPath(one.path), await readFile(sidecarPath(other.path)))
    const [foreign] = await problemsOf(one.id)
    expect(foreign).toMatchObject({ severity: 'note' })
    expect(foreign.message).toMatch(/belongs to session .* resume ignores it and reads the whole log/)

    const text = await readFile(other.path, 'utf8')
    await truncate(other.path, text.lastIndexOf('\n', text.length / 3) + 1)
    const [short] = await problemsOf(other.id)
    expect(short).toMatchObject({ severity: 'note' })
    expect(short.message).toMatch(/it covers \d+ events and \d+ bytes, the log holds/)
  })

  it('reports as damage a sidecar that a resume would trust but whose events differ from the log', async () => {
    const { id, path } = await compactedSession()
    const body = JSON.parse((await readFile(sidecarPath(path), 'utf8')).split('\n')[1]) as SidecarBody
    const summary = body.held.find((e) => e.type === 'context/message')!
    const forged = { ...summary, data: { ...summary.data, content: [{ type: 'text', text: 'Forged summary.' }] } }
    body.held = body.held.map((e) => (e.seq === summary.seq ? (forged as typeof e) : e))
    await writeFile(sidecarPath(path), sidecarText(body))
    const problems = await problemsOf(id)
    expect(problems).toHaveLength(1)
    expect(problems[0].severity).toBe('damage')
    expect(problems[0].message).toMatch(new RegExp(`its event ${summary.seq} differs from the log's.*a resume would use it; delete that file`))
  })
})
