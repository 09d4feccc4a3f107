import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { raw, startWeb, type WebRun } from './support.js'
import { sandbox } from '../support/cli.js'
import { Session } from '../../src/session/session.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'

let run: WebRun | undefined
afterEach(async () => {
  await run?.stop()
  run = undefined
})

/** A served workspace with one finished session whose first turn rewrote a.txt; returns the session id. */
async function servedSession(): Promise<{ run: WebRun; id: string; cwd: string; json: (path: string, body: unknown) => ReturnType<typeof raw> }> {
  const box = sandbox()
  writeFileSync(join(box.cwd, 'a.txt'), 'mine\n')
  run = await startWeb({
    box,
    args: ['--permission-mode', 'bypass'],
    script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo agent > a.txt' } }] }, { text: 'Done.' }],
  })
  const r = run
  const json = (path: string, body: unknown) =>
    raw(r.origin, path, {
      method: 'POST',
      headers: { authorization: `Bearer ${r.token}`, 'content-type': 'application/json', origin: r.origin },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
  const started = await json('/api/sessions', { cwd: box.cwd })
  const id = started.json().id as string
  await json(`/api/sessions/${id}/input`, { text: 'rewrite a.txt', how: 'enter' })
  for (let i = 0; i < 200 && readLog(box.home, id).every((line) => !line.includes('"turn/end"')); i++) await new Promise((r) => setTimeout(r, 25))
  expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('agent\n')
  return { run: r, id, cwd: box.cwd, json }
}

function readLog(home: string, id: string): string[] {
  const dir = join(home, 'sessions')
  for (const key of readdirSync(dir)) {
    try {
      return readFileSync(join(dir, key, `${id}.jsonl`), 'utf8').split('\n')
    } catch {
      // Another workspace's folder.
    }
  }
  return []
}

describe('the web rewind routes', () => {
  it('lists the turns a rewind can go back to, and plans a rewind without changing anything', async () => {
    const s = await servedSession()
    const turns = await raw(s.run.origin, `/api/sessions/${s.id}/turns`, { headers: { authorization: `Bearer ${s.run.token}` } })
    expect(turns.json()).toMatchObject({ turns: [{ turn: 1, prompt: 'rewrite a.txt', changes: [{ path: 'a.txt', kind: 'modified' }] }], undoable: null })
    const plan = await s.json(`/api/sessions/${s.id}/rewind`, { turn: 1, dryRun: true })
    expect(plan.status).toBe(200)
    expect(plan.json()).toMatchObject({ outcome: 'planned', turn: 1, code: { changes: [{ path: 'a.txt', kind: 'modified' }], conflicts: [] } })
    expect(readFileSync(join(s.cwd, 'a.txt'), 'utf8')).toBe('agent\n')
  })

  it('refuses a body that is not JSON, a turn that is not a number, and a turn out of range, each in one sentence', async () => {
    const s = await servedSession()
    const notJson = await s.json(`/api/sessions/${s.id}/rewind`, '{turn')
    expect(notJson.status).toBe(400)
    expect(notJson.json().error).toBe('The request body is not JSON.')
    const word = await s.json(`/api/sessions/${s.id}/rewind`, { turn: 'one' })
    expect(word.status).toBe(400)
    expect(word.json().error).toMatch(/^Invalid request: turn /)
    const extra = await s.json(`/api/sessions/${s.id}/rewind`, { turn: 1, everything: true })
    expect(extra.status).toBe(400)
    const far = await s.json(`/api/sessions/${s.id}/rewind`, { turn: 7 })
    expect(far.status).toBe(400)
    expect(far.json().error).toMatch(/has no turn 7; its turns are 1 to 1\.$/)
    expect(readFileSync(join(s.cwd, 'a.txt'), 'utf8')).toBe('agent\n')
  })

  it('refuses a session outside the served workspace and an id that is not one', async () => {
    const s = await servedSession()
    const elsewhere = sandbox()
    const store = new JsonlStore(s.run.box.home)
    const foreign = await Session.create(store, { cwd: elsewhere.cwd })
    await foreign.close()
    const refused = await s.json(`/api/sessions/${foreign.id}/rewind`, { turn: 1 })
    expect(refused.status).toBe(403)
    expect(refused.json().error).toMatch(/outside this server's workspace/)
    const bad = await s.json('/api/sessions/..%2F..%2Fetc/rewind', { turn: 1 })
    expect(bad.status).toBe(400)
  })

  it('refuses a rewind of a session another process is writing, in one sentence, and leaves it as it was', async () => {
    const s = await servedSession()
    const held = await Session.create(new JsonlStore(s.run.box.home), { cwd: s.cwd })
    try {
      const refused = await s.json(`/api/sessions/${held.id}/rewind`, { turn: 1 })
      expect(refused.status).toBe(409)
      expect(refused.json().error).toMatch(/^[A-Z].*\.$/)
      expect(refused.json().error).not.toContain('\n')
    } finally {
      await held.close()
    }
  })

  it('refuses a rewind while a turn runs', async () => {
    const box = sandbox()
    run = await startWeb({ box, args: ['--permission-mode', 'bypass'], script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 3' } }] }, { text: 'Slept.' }] })
    const r = run
    const post = (path: string, body: unknown) =>
      raw(r.origin, path, { method: 'POST', headers: { authorization: `Bearer ${r.token}`, 'content-type': 'application/json', origin: r.origin }, body: JSON.stringify(body) })
    const id = (await post('/api/sessions', { cwd: box.cwd })).json().id as string
    await post(`/api/sessions/${id}/input`, { text: 'sleep', how: 'enter' })
    for (let i = 0; i < 200 && !readLog(box.home, id).some((line) => line.includes('"tool/call"')); i++) await new Promise((r) => setTimeout(r, 25))
    const busy = await post(`/api/sessions/${id}/rewind`, { turn: 1 })
    expect(busy.status).toBe(409)
    expect(busy.json().error).toBe('Cannot rewind while a turn runs; cancel it or wait for it to end.')
  })
})
