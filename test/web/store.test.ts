import { afterEach, describe, expect, it } from 'vitest'
import { Session } from '../../src/session/session.js'
import { PostgresStore } from '../../src/store/postgres/store.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { freshDatabase, postgresUrl } from '../support/postgres-db.js'
import { raw, startWeb, trusted, type WebRun } from './support.js'

let run: WebRun | undefined
let mock: MockModel | undefined
let store: PostgresStore | undefined
afterEach(async () => {
  await run?.stop()
  await mock?.close()
  await store?.close()
  run = mock = store = undefined
})

interface Row {
  id: string
  title: string
  turns: number
  state: string
  hosted: boolean
  model: string
}

async function get(web: WebRun, path: string): Promise<{ status: number; body: Record<string, unknown> & { error?: string } }> {
  const res = await raw(web.origin, path, { headers: trusted(web) })
  return { status: res.status, body: res.json() }
}

async function rows(web: WebRun): Promise<Row[]> {
  const listed = await get(web, '/api/sessions')
  expect(listed.status).toBe(200)
  return listed.body.sessions as Row[]
}

/** Polls the listing until `id`'s row satisfies `done` (the test's own timeout bounds the wait). */
async function rowWhen(web: WebRun, id: string, done: (row: Row) => boolean): Promise<Row> {
  for (;;) {
    const row = (await rows(web)).find((r) => r.id === id)
    if (row && done(row)) return row
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe.runIf(postgresUrl)('rein web with a PostgreSQL store', () => {
  it('lists a session rein -p wrote to the database, and loads its page, events, inspector and export from there', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({ script: [{ text: 'Stored in Postgres.' }] })
    const first = await runCli(['-p', 'remember this fleet task', '--store', url, '--output-format', 'json'], {
      cwd: box.cwd,
      env: cliEnv({ url: mock.url, home: box.home }),
    })
    expect(first.stderr).toBe('')
    const id = JSON.parse(first.stdout).session_id as string

    run = await startWeb({ box, args: ['--store', url] })
    const listed = await rows(run)
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatchObject({ id, title: 'remember this fleet task', turns: 1, state: 'idle', hosted: false })

    const page = await get(run, `/api/sessions/${id}`)
    expect(page.status).toBe(200)
    expect(page.body).toMatchObject({ id, cwd: box.cwd, title: 'remember this fleet task', state: { hosted: false, state: 'idle' } })
    const events = await get(run, `/api/sessions/${id}/events`)
    expect(events.body.total).toBe(page.body.total)
    const texts = JSON.stringify(events.body.events)
    expect(texts).toContain('remember this fleet task')
    expect(texts).toContain('Stored in Postgres.')
    expect((await get(run, `/api/sessions/${id}/inspect`)).status).toBe(200)

    const exported = await raw(run.origin, `/api/sessions/${id}/export?format=jsonl`, { headers: trusted(run) })
    const fromCli = await runCli(['sessions', 'export', id, '--store', url], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(exported.body).toBe(fromCli.stdout)

    // The JSONL store under REIN_HOME holds nothing: the page read the database.
    const jsonl = await runCli(['sessions', 'list', '--all'], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(jsonl.stdout).toBe('No sessions yet.\n')
  })

  it('writes the sessions its page starts to the database, where rein -p can continue them', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    run = await startWeb({ box, script: [{ text: 'Started from the page.' }], args: ['--store', url] })
    const started = await raw(run.origin, '/api/sessions', { method: 'POST', headers: trusted(run), body: JSON.stringify({ cwd: box.cwd }) })
    expect(started.status).toBe(201)
    const id = started.json().id as string
    const sent = await raw(run.origin, `/api/sessions/${id}/input`, {
      method: 'POST',
      headers: trusted(run),
      body: JSON.stringify({ text: 'hello from the page', how: 'enter' }),
    })
    expect(sent.status).toBe(200)
    await rowWhen(run, id, (row) => row.turns === 1 && row.state === 'idle')
    await run.stop()
    run = undefined

    const listed = await runCli(['sessions', 'list', '--store', url], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(listed.stdout).toContain(id.slice(0, 8))
    expect(listed.stdout).toContain('hello from the page')
    mock = await startMockModel({ script: [{ text: 'Continued in the terminal.' }] })
    const resumed = await runCli(['-p', 'and go on', '--resume', id, '--store', url], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(resumed.stderr).toBe('')
    expect(resumed.stdout).toBe('Continued in the terminal.\n')
    const exported = await runCli(['sessions', 'export', id, '--store', url], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(exported.stdout).toContain('Started from the page.')
    expect(exported.stdout).toContain('Continued in the terminal.')
  })

  it('shows a session another process holds with an open turn as running, and as interrupted once it lets go', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    store = new PostgresStore(url)
    const held = await Session.create(store, { cwd: box.cwd })
    held.append('turn/start', { turn: 1 })
    held.append('user/message', { id: 'u1', content: [{ type: 'text', text: 'a long task elsewhere' }], source: { kind: 'user' } })
    await held.flush()

    run = await startWeb({ box, args: ['--store', url] })
    expect(await rowWhen(run, held.id, () => true)).toMatchObject({ state: 'running', hosted: false })
    const before = await get(run, `/api/sessions/${held.id}`)
    expect(before.body.state).toEqual({ hosted: false, state: 'running' })

    // What the other process appends shows on the next read: the cached log is keyed by the store's summary.
    held.append('session/title', { title: 'renamed elsewhere' })
    await held.flush()
    const after = await get(run, `/api/sessions/${held.id}`)
    expect(after.body).toMatchObject({ title: 'renamed elsewhere', total: (before.body.total as number) + 1 })
    const tail = await get(run, `/api/sessions/${held.id}/events?before=${after.body.total as number}&limit=1`)
    expect(tail.body.events).toMatchObject([{ type: 'session/title', data: { title: 'renamed elsewhere' } }])

    await held.close()
    expect(await rowWhen(run, held.id, () => true)).toMatchObject({ state: 'interrupted', hosted: false })
  })
})

describe('rein web choosing its store', () => {
  it('takes the store from REIN_STORE and refuses one that is not a store in one sentence naming where it came from', async () => {
    const box = sandbox()
    const r = await runCli(['web', '--no-open', '--port', '0'], { cwd: box.cwd, env: cliEnv({ home: box.home, extra: { REIN_STORE: 'mysql://x' } }) })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe('rein: REIN_STORE names "mysql://x", which is not a store; use jsonl or a postgres://user@host:5432/database URL.\n')
  })

  it('says before serving that a database it cannot reach is unreachable, without the password', async () => {
    const box = sandbox()
    const r = await runCli(['web', '--no-open', '--port', '0', '--store', 'postgres://u:hunter2@127.0.0.1:1/db'], {
      cwd: box.cwd,
      env: cliEnv({ home: box.home }),
    })
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(
      'rein: cannot use the session store at postgres://u:***@127.0.0.1:1/db: nothing is listening there; start the server or fix the host and port.\n',
    )
  })
})
