import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli } from '../support/cli.js'
import { raw, startWeb, trusted, type WebRun } from './support.js'

let run: WebRun | undefined
afterEach(async () => {
  await run?.stop()
  run = undefined
})

describe('rein web refuses what did not come from its own page', () => {
  it('prints a loopback address with a long random token and serves the page shell under a strict CSP', async () => {
    run = await startWeb()
    expect(run.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[0-9a-f]{64}$/)
    const page = await raw(run.origin, '/')
    expect(page.status).toBe(200)
    expect(page.body).toContain('<div id="app">')
    expect(page.headers['content-security-policy']).toContain("default-src 'none'")
    expect(page.headers['content-security-policy']).toContain("script-src 'self'")
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'")
    expect(page.body).not.toMatch(/<script>(?!<\/script>)/)
  })

  it('refuses an API request without the token, and one with a wrong token', async () => {
    run = await startWeb()
    const none = await raw(run.origin, '/api/sessions')
    expect(none.status).toBe(401)
    expect(none.json().error).toMatch(/lacks the rein web token/)
    const wrong = await raw(run.origin, '/api/sessions', { headers: { authorization: `Bearer ${'0'.repeat(64)}` } })
    expect(wrong.status).toBe(401)
    const badCookie = await raw(run.origin, '/api/sessions', { headers: { cookie: `rein_web_${new URL(run.origin).port}=nope` } })
    expect(badCookie.status).toBe(401)
    const ok = await raw(run.origin, '/api/sessions', { headers: { authorization: `Bearer ${run.token}` } })
    expect(ok.status).toBe(200)
  })

  it('trades the token for an HttpOnly SameSite=Strict cookie that then authenticates alone', async () => {
    run = await startWeb()
    const wrong = await raw(run.origin, '/api/auth', { method: 'POST', headers: { origin: run.origin, authorization: 'Bearer 1234' } })
    expect(wrong.status).toBe(401)
    const auth = await raw(run.origin, '/api/auth', { method: 'POST', headers: { origin: run.origin, authorization: `Bearer ${run.token}` } })
    expect(auth.status).toBe(200)
    const cookie = String(auth.headers['set-cookie'])
    expect(cookie).toMatch(/HttpOnly/i)
    expect(cookie).toMatch(/SameSite=Strict/i)
    const listed = await raw(run.origin, '/api/sessions', { headers: { cookie: cookie.split(';')[0] } })
    expect(listed.status).toBe(200)
  })

  it('refuses a request whose Host header names another site (DNS rebinding), even with the token', async () => {
    run = await startWeb()
    const port = new URL(run.origin).port
    for (const host of [`evil.example:${port}`, 'localhost:1', `127.0.0.1.nip.io:${port}`]) {
      const res = await raw(run.origin, '/api/sessions', { headers: { host, authorization: `Bearer ${run.token}` } })
      expect(res.status, host).toBe(421)
      expect(res.json().error).toMatch(/Host header/)
    }
    expect((await raw(run.origin, '/', { headers: { host: 'evil.example' } })).status).toBe(421)
    expect((await raw(run.origin, '/api/sessions', { headers: { host: `localhost:${port}`, authorization: `Bearer ${run.token}` } })).status).toBe(200)
  })

  it('refuses a change from a foreign Origin or with no Origin, and never answers with CORS headers', async () => {
    run = await startWeb()
    const body = JSON.stringify({ cwd: '.' })
    const foreign = await raw(run.origin, '/api/sessions', { method: 'POST', body, headers: trusted(run, { origin: 'http://evil.example' }) })
    expect(foreign.status).toBe(403)
    expect(foreign.json().error).toMatch(/own page/)
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined()
    const headers = trusted(run)
    delete headers.origin
    expect((await raw(run.origin, '/api/sessions', { method: 'POST', body, headers })).status).toBe(403)
    const read = await raw(run.origin, '/api/sessions', { headers: { authorization: `Bearer ${run.token}`, origin: 'http://evil.example' } })
    expect(read.headers['access-control-allow-origin']).toBeUndefined()
    const preflight = await raw(run.origin, '/api/sessions', { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' } })
    expect(preflight.status).toBe(403)
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('refuses to start a session in a directory outside the workspace, through .., or through a symlink', async () => {
    run = await startWeb()
    mkdirSync(join(run.box.root, 'elsewhere'))
    symlinkSync(join(run.box.root, 'elsewhere'), join(run.box.cwd, 'link'))
    for (const cwd of ['/etc', '..', '../elsewhere', 'link', '~']) {
      const res = await raw(run.origin, '/api/sessions', { method: 'POST', body: JSON.stringify({ cwd }), headers: trusted(run) })
      expect(res.status, cwd).toBe(403)
      expect(res.json().error).toMatch(/outside the workspace/)
    }
    const git = join(run.box.cwd, '.git')
    mkdirSync(git)
    const guarded = await raw(run.origin, '/api/sessions', { method: 'POST', body: JSON.stringify({ cwd: '.git' }), headers: trusted(run) })
    expect(guarded.status).toBe(403)
    expect(guarded.json().error).toMatch(/protected/)
    const missing = await raw(run.origin, '/api/sessions', { method: 'POST', body: JSON.stringify({ cwd: 'nope' }), headers: trusted(run) })
    expect(missing.status).toBe(400)
    expect(missing.json().error).toMatch(/not a directory/)
    mkdirSync(join(run.box.cwd, 'sub'))
    const inside = await raw(run.origin, '/api/sessions', { method: 'POST', body: JSON.stringify({ cwd: 'sub' }), headers: trusted(run) })
    expect(inside.status).toBe(201)
  })

  it('answers bad input with one sentence and keeps serving', async () => {
    run = await startWeb()
    const notJson = await raw(run.origin, '/api/sessions', { method: 'POST', body: '{nope', headers: trusted(run) })
    expect(notJson.status).toBe(400)
    expect(notJson.json().error).toBe('The request body is not JSON.')
    const badId = await raw(run.origin, '/api/sessions/..%2F..%2Fetc', { headers: trusted(run) })
    expect(badId.status).toBe(400)
    const unknown = await raw(run.origin, '/api/sessions/0000-not-there', { headers: trusted(run) })
    expect(unknown.status).toBe(404)
    expect(unknown.json().error).toMatch(/\.$/)
    const created = (await raw(run.origin, '/api/sessions', { method: 'POST', body: JSON.stringify({ cwd: '.' }), headers: trusted(run) })).json()
    const emptyPrompt = await raw(run.origin, `/api/sessions/${String(created.id)}/input`, { method: 'POST', body: JSON.stringify({ text: '', how: 'enter' }), headers: trusted(run) })
    expect(emptyPrompt.status).toBe(400)
    expect(emptyPrompt.json().error).toMatch(/^Invalid request: text is empty\.$/)
    const badMode = await raw(run.origin, `/api/sessions/${String(created.id)}/settings`, { method: 'POST', body: JSON.stringify({ permissionMode: 'yolo' }), headers: trusted(run) })
    expect(badMode.status).toBe(400)
    const staleAsk = await raw(run.origin, `/api/sessions/${String(created.id)}/asks/abc`, { method: 'POST', body: JSON.stringify({ outcome: 'allow-once' }), headers: trusted(run) })
    expect(staleAsk.status).toBe(409)
    expect((await raw(run.origin, '/api/sessions', { headers: trusted(run) })).status).toBe(200)
  })

  it('shows a session another process is writing, but refuses to drive it, naming the holder', async () => {
    run = await startWeb({ script: [{ text: 'Earlier answer.' }] })
    const made = await runCli(['-p', 'an earlier run'], { cwd: run.box.cwd, env: cliEnv({ url: run.mock.url, home: run.box.home }) })
    expect(made.code, made.stderr).toBe(0)
    const sessions = join(run.box.home, 'sessions')
    const folder = join(sessions, readdirSync(sessions)[0])
    const file = readdirSync(folder).find((f) => f.endsWith('.jsonl')) as string
    const id = file.replace(/\.jsonl$/, '')
    // A live holder: this test process, on this host, refreshed just now.
    writeFileSync(join(folder, `${file}.lock`), JSON.stringify({ pid: process.pid, host: hostname(), startedAt: Date.now() }))
    const shown = await raw(run.origin, `/api/sessions/${id}`, { headers: trusted(run) })
    expect(shown.status).toBe(200)
    expect(shown.json().total).toBeGreaterThan(0)
    const prompt = await raw(run.origin, `/api/sessions/${id}/input`, { method: 'POST', body: JSON.stringify({ text: 'more', how: 'enter' }), headers: trusted(run) })
    expect(prompt.status).toBe(409)
    expect(prompt.json().error).toMatch(new RegExp(`^Session ${id} is open for writing by process ${process.pid} on this machine`))
    const fork = await raw(run.origin, `/api/sessions/${id}/fork`, { method: 'POST', body: '{}', headers: trusted(run) })
    expect(fork.status).toBe(201)
  })

  it('refuses a damaged log with the sentence that names its file and line', async () => {
    run = await startWeb()
    const created = (await raw(run.origin, '/api/sessions', { method: 'POST', body: JSON.stringify({ cwd: '.' }), headers: trusted(run) })).json()
    const box = run.box
    await run.stop()
    const sessions = join(box.home, 'sessions')
    const folder = join(sessions, readdirSync(sessions)[0])
    writeFileSync(join(folder, `${String(created.id)}.jsonl`), 'not a header\n{"seq":0}\n')
    run = await startWeb({ box })
    const res = await raw(run.origin, `/api/sessions/${String(created.id)}`, { headers: trusted(run) })
    expect(res.status).toBe(409)
    expect(res.json().error).toMatch(/line 1/)
    expect((await raw(run.origin, '/api/sessions', { headers: trusted(run) })).status).toBe(200)
    // The suite's teardown verifies every log left in TMPDIR; this one is damaged on purpose.
    rmSync(join(folder, `${String(created.id)}.jsonl`))
  })

  it("hides another workspace's sessions unless started with --all", async () => {
    run = await startWeb({ script: [{ text: 'Elsewhere.' }] })
    const other = join(run.box.root, 'other')
    mkdirSync(other)
    const made = await runCli(['-p', 'hello elsewhere', '--cwd', other], { cwd: other, env: cliEnv({ url: run.mock.url, home: run.box.home }) })
    expect(made.code, made.stderr).toBe(0)
    const listed = (await raw(run.origin, '/api/sessions', { headers: trusted(run) })).json() as { sessions: unknown[] }
    expect(listed.sessions).toEqual([])
    const box = run.box
    await run.stop()
    run = await startWeb({ box, args: ['--all'] })
    const all = (await raw(run.origin, '/api/sessions', { headers: trusted(run) })).json() as { sessions: { id: string; cwd: string }[] }
    expect(all.sessions.map((s) => s.cwd)).toEqual([other])
  })

  it('warns when told to listen beyond loopback', async () => {
    run = await startWeb({ args: ['--host', '0.0.0.0'] })
    expect(run.stderr()).toMatch(/warning: rein web listens on 0\.0\.0\.0, not loopback/)
  })

  it('stops on SIGTERM, closing the sessions it holds so their logs verify', async () => {
    run = await startWeb({ script: [{ text: 'Done.' }] })
    const created = (await raw(run.origin, '/api/sessions', { method: 'POST', body: JSON.stringify({ cwd: '.' }), headers: trusted(run) })).json()
    const id = String(created.id)
    await raw(run.origin, `/api/sessions/${id}/input`, { method: 'POST', body: JSON.stringify({ text: 'hi', how: 'enter' }), headers: trusted(run) })
    const { box, mock } = run
    const code = await run.stop()
    run = undefined
    expect(code).toBe(143)
    const verify = await runCli(['sessions', 'verify', id], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(verify.code, verify.stdout + verify.stderr).toBe(0)
  })
})
