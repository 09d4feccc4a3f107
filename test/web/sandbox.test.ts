import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { raw, startWeb, type WebRun } from './support.js'
import { sandbox as testBox } from '../support/cli.js'
import { requireBwrap } from '../sandbox/bwrap-required.js'
import { TranscriptModel } from '../../web/src/transcript.js'
import type { LogEvent } from '../../web/src/types.js'

// A session `rein web` hosts with the sandbox on in the user's settings: the page's transcript, fed by the events
// route, marks the bash card as sandboxed and carries the sandbox's note of what it stopped.

const bwrap = requireBwrap()

let run: WebRun | undefined
afterEach(async () => {
  await run?.stop()
  run = undefined
})

function logOf(home: string, id: string): string {
  const dir = join(home, 'sessions')
  for (const key of readdirSync(dir)) {
    const file = join(dir, key, `${id}.jsonl`)
    if (existsSync(file)) return readFileSync(file, 'utf8')
  }
  return ''
}

describe.runIf(bwrap.available)('the web page and the sandbox', () => {
  it('shows a sandboxed command as sandboxed, with the note of what the sandbox stopped', async () => {
    const box = testBox()
    writeFileSync(join(box.home, 'settings.json'), JSON.stringify({ sandbox: { enabled: true } }))
    run = await startWeb({
      box,
      args: ['--permission-mode', 'default'],
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo inside; touch /etc/rein-web-probe' } }] }, { text: 'Done.' }],
    })
    const r = run
    const headers = { authorization: `Bearer ${r.token}`, 'content-type': 'application/json', origin: r.origin }
    const post = (path: string, body: unknown) => raw(r.origin, path, { method: 'POST', headers, body: JSON.stringify(body) })
    const id = (await post('/api/sessions', { cwd: box.cwd })).json().id as string
    await post(`/api/sessions/${id}/input`, { text: 'go', how: 'enter' })
    for (let i = 0; i < 400 && !logOf(box.home, id).includes('"turn/end"'); i++) await new Promise((done) => setTimeout(done, 25))

    const page = await raw(r.origin, `/api/sessions/${id}/events`, { headers: { authorization: `Bearer ${r.token}` } })
    const model = new TranscriptModel()
    for (const event of (page.json() as unknown as { events: LogEvent[] }).events) model.apply(event)
    const card = model.items.find((i) => i.kind === 'tool')
    expect(card).toMatchObject({ kind: 'tool', name: 'bash', sandbox: { note: expect.stringMatching(/^The sandbox kept \/etc\/rein-web-probe read-only/) } })
    expect(card?.kind === 'tool' && card.output).toMatch(/^inside\n/)
    expect(existsSync('/etc/rein-web-probe')).toBe(false)
  })
})

describe('the page’s tool card', () => {
  it('carries no sandbox mark for a command that ran unconfined', () => {
    const m = new TranscriptModel()
    m.apply({ seq: 0, time: 0, type: 'tool/call', data: { callId: 'c1', name: 'bash', arguments: '{"command":"ls"}' } })
    m.apply({ seq: 1, time: 0, type: 'tool/result', data: { callId: 'c1', content: [{ type: 'text', text: '[sandbox] not a note\n[exit code: 0]' }], isError: false, meta: { exitCode: 0 } } })
    expect(m.items[0]).not.toHaveProperty('sandbox')
  })
})
