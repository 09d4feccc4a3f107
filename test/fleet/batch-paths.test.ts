import { execFileSync } from 'node:child_process'
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

/**
 * A batch task whose `cwd` or `repo` holds a file the read rules cover (issue 29): the copy would make it an ordinary
 * read inside the task's workspace, so the task is refused in one sentence, nothing is copied and no model request is
 * made (docs/fleet.md, "What a task's source may hold").
 */

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

const KEY_TEXT = 'PRIVATE-KEY-SENTINEL-a71c'

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

interface Box {
  root: string
  home: string
  /** The user's home directory, `~` in rules. */
  user: string
}

function box(): Box {
  const made = sandbox()
  const user = join(made.root, 'user')
  put(join(user, '.ssh', 'id_rsa'), `${KEY_TEXT}\n`)
  put(join(made.home, 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(~/.ssh/**)'] } }))
  return { root: made.root, home: made.home, user }
}

async function batch(b: Box, task: Record<string, unknown>) {
  mock = await startMockModel({ script: [{ text: 'done', repeat: true }] })
  const file = join(b.root, 'tasks.jsonl')
  writeFileSync(file, `${JSON.stringify({ id: 't1', prompt: 'read everything', ...task })}\n`)
  const out = join(b.root, 'out.jsonl')
  const run = await runCli(['batch', file, '--out', out], { cwd: b.root, env: cliEnv({ url: mock.url, home: b.home, extra: { HOME: b.user } }), timeoutMs: 60_000 })
  const results = existsSync(out) ? readFileSync(out, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { status: string; error?: string }) : []
  return { run, result: results[0], workspaces: join(`${out}.work`, 'workspaces') }
}

function expectRefused(outcome: Awaited<ReturnType<typeof batch>>, sentence: RegExp): void {
  expect(outcome.result?.status).toBe('failed')
  expect(outcome.result?.error).toMatch(sentence)
  expect(outcome.result?.error).toMatch(/so the task was not run\. Point (cwd|repo) at a folder without it\.$/)
  expect(mock!.requests).toHaveLength(0)
  const copied = existsSync(outcome.workspaces) ? readdirSync(outcome.workspaces, { recursive: true }).map(String) : []
  expect(copied.filter((p) => p.includes('id_rsa') || p.includes('key.txt'))).toEqual([])
  expect(outcome.run.stdout + outcome.run.stderr).not.toContain(KEY_TEXT)
}

describe('a batch task whose source holds a file the read rules cover is refused in one sentence', () => {
  it('a cwd holding .ssh/, which Read(~/.ssh/**) covers', async () => {
    const b = box()
    expectRefused(await batch(b, { cwd: b.user }), /^task t1: its cwd .*\/user holds \.ssh(\/id_rsa)?, which may not be read \(the permission rule Read\(~\/\.ssh\/\*\*\) covers it\)/)
  })

  it("a cwd holding a file the source's own project deny rule covers", async () => {
    const b = box()
    const project = join(b.root, 'project')
    put(join(project, 'secrets', 'key.txt'), `${KEY_TEXT}\n`)
    put(join(project, '.rein', 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(secrets/**)'] } }))
    expectRefused(await batch(b, { cwd: project }), /holds secrets(\/key\.txt)?, which may not be read \(the permission rule Read\(secrets\/\*\*\) covers it\)/)
  })

  it('a cwd holding a symbolic link to the key', async () => {
    const b = box()
    const project = join(b.root, 'project')
    mkdirSync(project, { recursive: true })
    symlinkSync(join(b.user, '.ssh', 'id_rsa'), join(project, 'notes.txt'))
    expectRefused(await batch(b, { cwd: project }), /holds notes\.txt, which may not be read/)
  })

  it('a cwd holding a hard link to the key', async () => {
    const b = box()
    const project = join(b.root, 'project')
    mkdirSync(project, { recursive: true })
    linkSync(join(b.user, '.ssh', 'id_rsa'), join(project, 'notes.txt'))
    expectRefused(await batch(b, { cwd: project }), /holds notes\.txt, which may not be read \(it is a hard link to a file the permission rule Read\(~\/\.ssh\/\*\*\) covers\)/)
  })

  it("a cwd holding Rein's own home", async () => {
    const b = box()
    expectRefused(await batch(b, { cwd: b.root }), /holds (home|user\/\.ssh)\S*, which may not be read/)
  })

  it('a local repo that committed .ssh/id_rsa where Read(~/.ssh/**) covers it', async () => {
    const b = box()
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' }
    execFileSync('git', ['init', '-q', b.user])
    execFileSync('git', ['add', '.ssh/id_rsa'], { cwd: b.user, env })
    execFileSync('git', ['commit', '-qm', 'oops'], { cwd: b.user, env })
    expectRefused(await batch(b, { repo: b.user }), /^task t1: its repo .*\/user holds \.ssh(\/id_rsa)?, which may not be read/)
  })

  it('a cwd without such files runs (the control)', async () => {
    const b = box()
    const project = join(b.root, 'project')
    put(join(project, 'README.md'), 'hello\n')
    const outcome = await batch(b, { cwd: project })
    expect(outcome.result?.status, outcome.result?.error).toBe('completed')
    expect(mock!.requests.length).toBeGreaterThan(0)
  })
})
