import { createHash } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { adaptersFor, textOfMessage } from '../../src/frontend/session-requests.js'
import { deriveRequests } from '../../src/session/replay.js'
import type { InspectedRequest, MessagePage } from '../../src/web/inspector-api.js'
import { sandbox } from '../support/cli.js'
import { inspectedSession } from './inspected-session.js'
import { raw, startWeb, trusted, type WebRun } from './support.js'

let run: WebRun | undefined
afterEach(async () => {
  await run?.stop()
  run = undefined
})

/** A served workspace with a stored session of `turns` turns of 4 steps whose requests are all logged. */
async function served(turns: number, compactBefore?: number) {
  const box = sandbox()
  const { id, session } = await inspectedSession(box.home, box.cwd, turns, 4, compactBefore)
  run = await startWeb({ box })
  const derived = deriveRequests(session.events, adaptersFor())
  return { run, id, session, derived }
}

const get = (r: WebRun, path: string, headers = trusted(r)) => raw(r.origin, path, { headers })
/** A one-sentence refusal: starts with a capital, ends with a full stop, and has no second sentence. */
const ONE_SENTENCE = /^[A-Z][^\n]*\.$/

describe('the inspector answers a chosen step without its body, and pages its messages', () => {
  it('answers a step with its header, digest check and newest messages, every message new in the step among them, and no body', async () => {
    const s = await served(20)
    const last = s.derived[s.derived.length - 1]
    const previous = s.derived[s.derived.length - 2]
    const answer = await get(s.run, `/api/sessions/${s.id}/requests/${last.seq}`)
    expect(answer.status).toBe(200)
    const request = answer.json() as unknown as InspectedRequest
    expect(request).not.toHaveProperty('body')
    expect(request.matches).toBe(true)
    expect(request.sha256).toBe(last.logged.sha256)
    expect(request.total).toBe(last.request.messages.length)
    expect(request.newFrom).toBe(previous.request.messages.length)
    expect(request.items.map((m) => m.index)).toEqual(Array.from({ length: request.total - request.start }, (_, i) => request.start + i))
    expect(request.start).toBeLessThanOrEqual(request.newFrom)
    expect(request.items.length).toBe(50)
    expect(request.items.map((m) => m.text)).toEqual(last.request.messages.slice(request.start).map(textOfMessage))
  })

  it('gives earlier messages a page at a time, which join up to the whole request as the log derives it', async () => {
    const s = await served(20)
    const last = s.derived[s.derived.length - 1]
    const first = (await get(s.run, `/api/sessions/${s.id}/requests/${last.seq}`)).json() as unknown as InspectedRequest
    let items = first.items
    let start = first.start
    while (start > 0) {
      const page = (await get(s.run, `/api/sessions/${s.id}/requests/${last.seq}/messages?before=${start}&limit=30`)).json() as unknown as MessagePage
      expect(page.start).toBe(Math.max(0, start - 30))
      items = [...page.items, ...items]
      start = page.start
    }
    expect(items.map((m) => m.text)).toEqual(last.request.messages.map(textOfMessage))
    expect(items.map((m) => m.role)).toEqual(last.request.messages.map((m) => m.role))
    expect(items.map((m) => m.seq)).toEqual(last.origins.map((o) => o.seq))
  })

  it('downloads the exact body, whose sha256 is the one the log holds', async () => {
    const s = await served(3)
    const last = s.derived[s.derived.length - 1]
    const body = await get(s.run, `/api/sessions/${s.id}/requests/${last.seq}/body`)
    expect(body.status).toBe(200)
    expect(body.headers['content-disposition']).toBe(`attachment; filename="rein-${s.id}-request-${last.seq}.json"`)
    expect(createHash('sha256').update(body.body, 'utf8').digest('hex')).toBe(last.logged.sha256)
  })

  it('counts every message of the first request after a compaction as new in its step', async () => {
    const s = await served(4, 3)
    const afterCompaction = s.derived.find((r) => r.turn === 3 && r.step === 1)
    if (!afterCompaction) throw new Error('the fixture logged no request for turn 3 step 1')
    const request = (await get(s.run, `/api/sessions/${s.id}/requests/${afterCompaction.seq}`)).json() as unknown as InspectedRequest
    expect(request.matches).toBe(true)
    expect(request.newFrom).toBe(0)
    expect(request.items[0].producer).toBe('compaction')
    expect(request.start).toBe(0)
  })

  it('refuses bad seqs, page offsets and limits with a 400, an unknown step with a 404, each in one sentence', async () => {
    const s = await served(2)
    const last = s.derived[s.derived.length - 1]
    const base = `/api/sessions/${s.id}/requests`
    const cases: [string, number, RegExp][] = [
      [`${base}/abc`, 400, /whole number/],
      [`${base}/-1`, 400, /whole number/],
      [`${base}/1e3`, 400, /whole number/],
      [`${base}/99999999999999999999`, 400, /whole number/],
      [`${base}/abc/messages`, 400, /whole number/],
      [`${base}/abc/body`, 400, /whole number/],
      [`${base}/0`, 404, /^No request was sent at seq 0 /],
      [`${base}/999999999/messages`, 404, /^No request was sent at seq 999999999 /],
      [`${base}/999999999/body`, 404, /^No request was sent/],
      [`${base}/${last.seq}/messages?before=abc`, 400, /^The before parameter must be a whole number from 0 to \d+/],
      [`${base}/${last.seq}/messages?before=-5`, 400, /^The before parameter/],
      [`${base}/${last.seq}/messages?before=999999999999`, 400, /^The before parameter/],
      [`${base}/${last.seq}/messages?before=`, 400, /^The before parameter/],
      [`${base}/${last.seq}/messages?limit=0`, 400, /^The limit parameter must be a whole number from 1 to 200/],
      [`${base}/${last.seq}/messages?limit=201`, 400, /^The limit parameter/],
      [`${base}/${last.seq}/messages?limit=1.5`, 400, /^The limit parameter/],
    ]
    for (const [path, status, sentence] of cases) {
      const answer = await get(s.run, path)
      expect({ path, status: answer.status }).toEqual({ path, status })
      expect(answer.json().error).toMatch(sentence)
      expect(answer.json().error).toMatch(ONE_SENTENCE)
    }
    const zero = (await get(s.run, `${base}/${last.seq}/messages?before=0`)).json() as unknown as MessagePage
    expect(zero.items).toEqual([])
  })

  it('refuses another workspace’s session, an unknown or malformed id, and a request without the token', async () => {
    const s = await served(1)
    const elsewhere = sandbox()
    const foreign = await inspectedSession(s.run.box.home, elsewhere.cwd, 1, 2)
    const seq = s.derived[0].seq
    for (const suffix of ['', '/messages', '/body']) {
      const other = await get(s.run, `/api/sessions/${foreign.id}/requests/${seq}${suffix}`)
      expect(other.status).toBe(403)
      expect(other.json().error).toMatch(/outside this server's workspace/)
      const unknown = await get(s.run, `/api/sessions/00000000-0000-0000-0000-000000000000/requests/${seq}${suffix}`)
      expect(unknown.status).toBe(404)
      expect(unknown.json().error).toMatch(ONE_SENTENCE)
      const malformed = await get(s.run, `/api/sessions/not_an.id/requests/${seq}${suffix}`)
      expect(malformed.status).toBe(400)
      const anonymous = await get(s.run, `/api/sessions/${s.id}/requests/${seq}${suffix}`, {})
      expect(anonymous.status).toBe(401)
      expect(anonymous.json().error).toMatch(/lacks the rein web token/)
    }
  })
})
