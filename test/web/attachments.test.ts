import { execFileSync } from 'node:child_process'
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startWeb, trusted, type WebRun } from './support.js'

/** The smallest PNG header the sniffer takes for an image, plus a few bytes of body. */
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('rein-web-image-body')])

let run: WebRun
let id: string
let elsewhere: string

beforeAll(async () => {
  const box = sandbox()
  writeFileSync(join(box.home, 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(secret.env)'] } }))
  writeFileSync(join(box.cwd, 'notes.txt'), 'the secret word is kumquat\n')
  writeFileSync(join(box.cwd, 'secret.env'), 'TOKEN=hunter2\n')
  writeFileSync(join(box.cwd, '.gitignore'), 'build/\n')
  mkdirSync(join(box.cwd, 'build'))
  writeFileSync(join(box.cwd, 'build', 'out.js'), 'built\n')
  mkdirSync(join(box.cwd, 'src'))
  writeFileSync(join(box.cwd, 'src', 'main.ts'), 'export {}\n')
  writeFileSync(join(box.root, 'outside.txt'), 'outside the workspace\n')
  symlinkSync(join(box.root, 'outside.txt'), join(box.cwd, 'link.txt'))
  execFileSync('mkfifo', [join(box.cwd, 'pipe')])
  writeFileSync(join(box.cwd, 'huge.log'), '')
  truncateSync(join(box.cwd, 'huge.log'), 50 * 1024 * 1024)
  run = await startWeb({ box, script: Array.from({ length: 6 }, () => ({ text: 'Seen.' })) })
  const started = await call('/api/sessions', { method: 'POST', json: { cwd: box.cwd } })
  id = (await started.json()).id
  const other = join(box.root, 'other')
  mkdirSync(other)
  const made = await runCli(['-p', 'hello elsewhere', '--output-format', 'json'], { cwd: other, env: cliEnv({ url: run.mock.url, home: box.home }) })
  elsewhere = JSON.parse(made.stdout).session_id
}, 60_000)
afterAll(async () => {
  await run?.stop()
})

/** A request from the server's own page (token and Origin), or with the headers given instead. */
async function call(path: string, o: { method?: string; json?: unknown; body?: Buffer; type?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers = o.headers ?? trusted(run, o.type ? { 'content-type': o.type } : {})
  const body = o.json !== undefined ? JSON.stringify(o.json) : o.body && new Uint8Array(o.body)
  return fetch(new URL(path, run.origin), { method: o.method ?? 'GET', headers, ...(body !== undefined ? { body } : {}) })
}

async function upload(name: string, body: Buffer, type = 'application/octet-stream', session = id): Promise<Response> {
  return call(`/api/sessions/${session}/attachments?name=${encodeURIComponent(name)}`, { method: 'POST', body, type })
}

/** A refusal: its status, and its error as one sentence. */
async function refusal(response: Response): Promise<{ status: number; error: string }> {
  const { error } = (await response.json()) as { error: string }
  expect(error).toMatch(/^\S.*[.]$/)
  expect(error.split(/[.!?] /).length).toBe(1)
  return { status: response.status, error }
}

async function userMessages(): Promise<number> {
  const page = (await (await call(`/api/sessions/${id}/events?limit=2000`)).json()) as { events: { type: string }[] }
  return page.events.filter((e) => e.type === 'user/message').length
}

async function waitForRequests(count: number): Promise<void> {
  while (run.mock.requests.length < count) await new Promise((r) => setTimeout(r, 50))
}

describe('attachments in the web composer', () => {
  it('sends an uploaded image as an image block and a text file as its content, as the terminal does', async () => {
    const image = await upload('screen.png', PNG, 'image/png')
    expect(image.status).toBe(201)
    const staged = (await image.json()) as { id: string; kind: string; mimeType: string }
    expect(staged).toMatchObject({ kind: 'image', mimeType: 'image/png' })
    const text = (await (await upload('todo.md', Buffer.from('- buy kumquats\n'))).json()) as { id: string; kind: string }
    expect(text.kind).toBe('text')
    const before = run.mock.requests.length
    const sent = await call(`/api/sessions/${id}/prompt`, { method: 'POST', json: { text: 'look at these', how: 'enter', attachments: [staged.id, text.id] } })
    expect(sent.status).toBe(200)
    expect(await sent.json()).toMatchObject({ attached: ['screen.png', 'todo.md'] })
    await waitForRequests(before + 1)
    const body = JSON.stringify(run.mock.requests[before].body)
    expect(body).toContain(`data:image/png;base64,${PNG.toString('base64')}`)
    expect(body).toContain('Attached file @todo.md:\\n- buy kumquats')
    const again = await call(`/api/sessions/${id}/prompt`, { method: 'POST', json: { text: 'again', how: 'followUp', attachments: [staged.id] } })
    expect((await refusal(again)).status).toBe(409)
  })

  it('types an image by its bytes, never by its name or the browser’s word', async () => {
    const named = (await (await upload('picture.txt', PNG, 'text/plain')).json()) as { kind: string; mimeType: string }
    expect(named).toMatchObject({ kind: 'image', mimeType: 'image/png' })
    const fake = await refusal(await upload('fake.png', Buffer.from('<script>alert(1)</script>'), 'image/png'))
    expect(fake).toMatchObject({ status: 415 })
    expect(fake.error).toContain('not a PNG, JPEG, GIF or WebP image')
    expect((await refusal(await upload('blob.bin', Buffer.from([1, 0, 2, 0])))).status).toBe(415)
  })

  it('refuses an oversized upload with 413 in one sentence', async () => {
    const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)])
    const answer = await refusal(await upload('big.png', big, 'image/png'))
    expect(answer).toMatchObject({ status: 413 })
    expect(answer.error).toContain('5 MiB')
    const text = await refusal(await upload('big.txt', Buffer.alloc(300 * 1024, 'a')))
    expect(text.status).toBe(413)
  })

  it('refuses a file name that holds a path', async () => {
    for (const name of ['../../etc/passwd', 'a/b.txt', '..\\x.txt', '..', '']) {
      const answer = await refusal(await upload(name, Buffer.from('hi')))
      expect(answer.status).toBe(400)
    }
  })

  it('refuses a session of another workspace, a request without the token, and a foreign Origin', async () => {
    expect((await refusal(await upload('a.txt', Buffer.from('hi'), 'text/plain', elsewhere))).status).toBe(403)
    const path = `/api/sessions/${id}/attachments?name=a.txt`
    const anonymous = await call(path, { method: 'POST', body: Buffer.from('hi'), headers: { origin: run.origin } })
    expect((await refusal(anonymous)).status).toBe(401)
    const foreign = await call(path, { method: 'POST', body: Buffer.from('hi'), headers: { authorization: `Bearer ${run.token}`, origin: 'http://evil.example' } })
    expect((await refusal(foreign)).status).toBe(403)
    const prompt = await call(`/api/sessions/${elsewhere}/prompt`, { method: 'POST', json: { text: 'hi', how: 'enter' } })
    expect((await refusal(prompt)).status).toBe(403)
    const files = await call(`/api/sessions/${elsewhere}/files`)
    expect((await refusal(files)).status).toBe(403)
  })
})

describe('@-mentions of workspace files', () => {
  it('lists workspace files for completion, without ignored or denied ones', async () => {
    const listed = (await (await call(`/api/sessions/${id}/files`)).json()) as { files: string[] }
    expect(listed.files).toEqual(expect.arrayContaining(['notes.txt', 'src/main.ts', '.gitignore']))
    expect(listed.files).not.toContain('build/out.js')
    expect(listed.files).not.toContain('secret.env')
    const matching = (await (await call(`/api/sessions/${id}/files?q=MAIN`)).json()) as { files: string[] }
    expect(matching.files).toEqual(['src/main.ts'])
  })

  it('attaches a mentioned file’s content through the read tool’s checks', async () => {
    const before = run.mock.requests.length
    const sent = await call(`/api/sessions/${id}/prompt`, { method: 'POST', json: { text: 'what does @notes.txt say? ask @someone', how: 'enter' } })
    expect(await sent.json()).toMatchObject({ attached: ['notes.txt'] })
    await waitForRequests(before + 1)
    expect(JSON.stringify(run.mock.requests[before].body)).toContain('the secret word is kumquat')
  })

  it('refuses, in one sentence and sending nothing, a mention outside the workspace, through a link, denied, a FIFO or too large', async () => {
    const cases: [string, RegExp][] = [
      ['@../../etc/passwd', /outside|workspace/],
      ['@link.txt', /outside|link/],
      ['@secret.env', /Read\(secret\.env\)/],
      ['@pipe', /regular file|FIFO/i],
      ['@huge.log', /bytes|large|over/],
    ]
    const messages = await userMessages()
    const requests = run.mock.requests.length
    for (const [mention, why] of cases) {
      const answer = await refusal(await call(`/api/sessions/${id}/prompt`, { method: 'POST', json: { text: `read ${mention}`, how: 'enter' } }))
      expect(answer.status, mention).toBe(403)
      expect(answer.error, mention).toMatch(why)
    }
    expect(await userMessages()).toBe(messages)
    expect(run.mock.requests.length).toBe(requests)
    expect(JSON.stringify(run.mock.requests)).not.toContain('hunter2')
  })
})

describe('the changed-files and MCP routes', () => {
  it('answer for a visible session, diff only paths the log names, and refuse another workspace or no token', async () => {
    expect(await (await call(`/api/sessions/${id}/changes`)).json()).toEqual({ files: [] })
    const traversal = await refusal(await call(`/api/sessions/${id}/changes/diff?path=${encodeURIComponent('../../etc/passwd')}`))
    expect(traversal.status).toBe(404)
    expect(await (await call(`/api/sessions/${id}/mcp`)).json()).toEqual({ hosted: true, servers: [] })
    for (const path of ['changes', 'changes/diff?path=a.txt', 'mcp']) {
      expect((await refusal(await call(`/api/sessions/${elsewhere}/${path}`))).status, path).toBe(403)
      expect((await refusal(await call(`/api/sessions/${id}/${path}`, { headers: {} }))).status, path).toBe(401)
    }
  })
})
