import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { freshDatabase, postgresUrl } from '../support/postgres-db.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

describe('choosing the session store', () => {
  it('refuses a store that is neither jsonl nor a postgres URL in one sentence naming where it came from', async () => {
    const box = sandbox()
    const viaEnv = await runCli(['sessions', 'list'], { cwd: box.cwd, env: cliEnv({ home: box.home, extra: { REIN_STORE: 'mysql://x' } }) })
    expect(viaEnv.code).toBe(1)
    expect(viaEnv.stderr).toBe('rein: REIN_STORE names "mysql://x", which is not a store; use jsonl or a postgres://user@host:5432/database URL.\n')
    const viaFlag = await runCli(['sessions', 'list', '--store', 'nope'], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(viaFlag.stderr).toMatch(/^rein: --store names "nope", which is not a store;/)
  })

  it('says in one sentence that a database it cannot reach is unreachable, without the password', async () => {
    const box = sandbox()
    const r = await runCli(['sessions', 'list', '--store', 'postgres://u:hunter2@127.0.0.1:1/db'], {
      cwd: box.cwd,
      env: cliEnv({ home: box.home }),
    })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(
      'rein: cannot use the session store at postgres://u:***@127.0.0.1:1/db: nothing is listening there; start the server or fix the host and port.\n',
    )
  })

  it('says that workers and batch status need a PostgreSQL store when none is named', async () => {
    const box = sandbox()
    const worker = await runCli(['worker'], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(worker.code).toBe(2)
    expect(worker.stderr).toBe('rein: a worker takes tasks from a PostgreSQL store; pass --store postgres://… or set REIN_STORE.\n')
    const status = await runCli(['batch', 'status'], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(status.stderr).toBe('rein: batch status reads the queue of a PostgreSQL store; pass --store postgres://… or set REIN_STORE.\n')
  })

  it('refuses a --session-id that is not an id, or that comes with --resume, in one sentence', async () => {
    const box = sandbox()
    const env = cliEnv({ home: box.home })
    const bad = await runCli(['-p', 'hi', '--session-id', '../x'], { cwd: box.cwd, env })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--session-id "\.\.\/x": an id holds only letters, digits and dashes\.\n$/)
    const both = await runCli(['-p', 'hi', '--session-id', 'abc', '--resume', 'abc'], { cwd: box.cwd, env })
    expect(both.stderr).toMatch(/--session-id names a new session; it cannot be used with --resume, --continue or --fork\.\n$/)
  })

  it('rejects a bad import line by line number, writing nothing', async () => {
    const box = sandbox()
    const file = join(box.root, 'bad.jsonl')
    await writeFile(file, '{"type":"session","version":1,"id":"imp-1","createdAt":1,"cwd":"/x"}\n{"seq":5,"time":1,"type":"turn/start","data":{"turn":1}}\n{}\n')
    const r = await runCli(['sessions', 'import', file], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(new RegExp(`^rein: session file ${file} line 2 has seq 5 where 0 was expected;`))
    const list = await runCli(['sessions', 'list', '--all'], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(list.stdout).toBe('No sessions yet.\n')
  })
})

describe.runIf(postgresUrl)('a run with a PostgreSQL store', () => {
  it('keeps the session in the database, lists it there, and moves it to the JSONL store and back byte for byte', async () => {
    const box = sandbox()
    const url = await freshDatabase()
    mock = await startMockModel({ script: [{ text: 'Stored in Postgres.' }, { text: 'Continued.' }] })
    const env = cliEnv({ url: mock.url, home: box.home, extra: { REIN_STORE: url } })
    const first = await runCli(['-p', 'remember this', '--output-format', 'json'], { cwd: box.cwd, env })
    expect(first.stderr).toBe('')
    const id = JSON.parse(first.stdout).session_id as string
    const resumed = await runCli(['-p', 'and continue', '--resume', id], { cwd: box.cwd, env })
    expect(resumed.stdout).toBe('Continued.\n')

    const jsonlEnv = cliEnv({ home: box.home })
    expect((await runCli(['sessions', 'list'], { cwd: box.cwd, env: jsonlEnv })).stdout).toMatch(/^No sessions in /)
    const listed = await runCli(['sessions', 'list', '--store', url], { cwd: box.cwd, env: jsonlEnv })
    expect(listed.stdout).toContain(id.slice(0, 8))
    expect(listed.stdout).toMatch(/\s2\s.*remember this/)

    const exported = await runCli(['sessions', 'export', id], { cwd: box.cwd, env })
    const imported = await runCli(['sessions', 'import', '-', '--store', 'jsonl'], { cwd: box.cwd, env, input: exported.stdout })
    expect(imported.stdout).toMatch(new RegExp(`^imported session ${id}: \\d+ events\\.\\n$`))
    const back = await runCli(['sessions', 'export', id], { cwd: box.cwd, env: jsonlEnv })
    expect(back.stdout).toBe(exported.stdout)
    const verified = await runCli(['sessions', 'verify', id], { cwd: box.cwd, env: jsonlEnv })
    expect(verified.stdout).toMatch(/no problems/)
    const again = await runCli(['sessions', 'import', '-'], { cwd: box.cwd, env, input: exported.stdout })
    expect(again.stderr).toMatch(/already exists .*use a new id\.\n$/)
  })
})
